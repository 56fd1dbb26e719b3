#!/usr/bin/env node
// Makes sure the embedded FalkorDB can run on this machine (run before `npm test`, after `npm run build`).
//
// Relay's embedded default needs the FalkorDB module (the optional package
// @falkordblite/linux-x64, Linux x64 only) and a server to load it: the
// redis-server bundled in that package if it starts here (it needs glibc 2.38),
// else valkey-server or redis-server 7.2+ on PATH. When none is found, as root
// on Debian 12 this installs valkey-server from bookworm-backports, on Debian 13+
// or Ubuntu 24.04+ from the main archive; otherwise it prints the exact command.
// `--dry-run` prints what it would do without doing it. `--sentinel` (npm run team, test:failover)
// also makes sure valkey-sentinel is there, installing it beside valkey-server the same way; `--cluster`
// (npm run cluster, test:cluster) makes sure valkey-cli is there (Debian's valkey-tools), which makes
// the cluster.
import { NodeContext } from "@effect/platform-node"
import { Effect, Option } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const BACKPORTS_LIST = "/etc/apt/sources.list.d/bookworm-backports.list"
const BACKPORTS_LINE = "deb http://deb.debian.org/debian bookworm-backports main"
const DOCKER =
  "start FalkorDB with `docker compose up -d` (see .env.example) and set FALKORDB_HOST=127.0.0.1, FALKORDB_PORT=6380 and FALKORDB_PASSWORD"
const dryRun = process.argv.includes("--dry-run")
// The tests always start a FalkorDB of their own, whatever .env says about Relay's database.
const forTests = process.argv.includes("--for-tests")
// Team mode starts its own servers and sentinels, whatever .env says about Relay's database.
const sentinel = process.argv.includes("--sentinel")
// `npm run cluster` creates its cluster with `valkey-cli --cluster create`.
const cluster = process.argv.includes("--cluster")
const root = join(dirname(fileURLToPath(import.meta.url)), "..")

const say = (line) => process.stdout.write(`setup-db: ${line}\n`)
const fail = (line) => {
  process.stderr.write(`setup-db: ${line}\n`)
  process.exit(1)
}

/** A database configured elsewhere (env or .env) makes the embedded server unnecessary. */
const externalDatabase = () => {
  const keys = ["FALKORDB_URL", "FALKORDB_HOST"]
  if (keys.some((k) => (process.env[k] ?? "") !== "")) return true
  try {
    const dotenv = readFileSync(join(root, ".env"), "utf8")
    return keys.some((k) => new RegExp(`^\\s*${k}\\s*=\\s*\\S`, "m").test(dotenv))
  } catch {
    return false
  }
}

/**
 * Finding the module and a server that runs it is Relay's own code (src/layers/embedded/serverBinary.ts),
 * used here from the build, so this script and the embedded launcher never disagree on what runs.
 */
const serverBinary = () => {
  const built = join(root, "dist", "layers", "embedded", "serverBinary.js")
  if (!existsSync(built)) fail("Relay is not built: run `npm run build` first (`npm run setup-db` does).")
  return import(pathToFileURL(built).href)
}
const runNode = (effect) => Effect.runPromise(Effect.provide(effect, NodeContext.layer))
const findModule = async () => Option.getOrUndefined(await runNode((await serverBinary()).findModule))
/** The first server that runs FalkorDB here, `{ command, version }`, or undefined. */
const findServer = async () =>
  Option.getOrUndefined(await runNode(Effect.option((await serverBinary()).findServerBinary)))

const osRelease = () => {
  try {
    const fields = Object.fromEntries(
      readFileSync("/etc/os-release", "utf8").split("\n").map((l) => /^([A-Z_]+)=("?)(.*)\2$/.exec(l))
        .filter((m) => m !== null).map((m) => [m[1], m[3]])
    )
    return { id: fields.ID ?? "", version: fields.VERSION_ID ?? "" }
  } catch {
    return { id: "", version: "" }
  }
}

/** valkey-sentinel answers (it is the server binary in sentinel mode, packaged apart). */
const hasCli = () => spawnSync("valkey-cli", ["--version"], { encoding: "utf8", timeout: 5000 }).status === 0
const hasSentinel = () => spawnSync("valkey-sentinel", ["--version"], { encoding: "utf8", timeout: 5000 }).status === 0

/** The apt steps for this system, or undefined where apt has no server of 7.2+. */
const installPlan = (packages) => {
  const { id, version } = osRelease()
  const major = Number.parseFloat(version)
  if (id === "debian" && major === 12) {
    return {
      backports: true,
      commands: [
        ["apt-get", "update"],
        ["apt-get", "install", "-y", "-t", "bookworm-backports", ...packages]
      ],
      shell:
        `echo '${BACKPORTS_LINE}' > ${BACKPORTS_LIST} && apt-get update && apt-get install -y -t bookworm-backports ${
          packages.join(" ")
        }`
    }
  }
  if ((id === "debian" && major >= 13) || (id === "ubuntu" && major >= 24.04)) {
    return {
      backports: false,
      commands: [["apt-get", "update"], ["apt-get", "install", "-y", ...packages]],
      shell: `apt-get update && apt-get install -y ${packages.join(" ")}`
    }
  }
  return undefined
}

const run = ([command, ...args]) => {
  if (dryRun) return say(`(dry run) would run: ${[command, ...args].join(" ")}`)
  const r = spawnSync(command, args, {
    encoding: "utf8",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    timeout: 10 * 60 * 1000
  })
  if (r.status !== 0) {
    const tail = `${r.stderr ?? ""}${r.stdout ?? ""}`.trim().split("\n").slice(-5).join("\n")
    fail(`\`${[command, ...args].join(" ")}\` failed (${r.error?.message ?? `exit ${r.status}`}):\n${tail}`)
  }
}

/** The package starts a plain valkey on 6379 that nothing needs: stop and disable it, ignoring failures. */
const quietPackagedService = () => {
  if (dryRun) return
  for (const unit of ["valkey-server", ...(sentinel ? ["valkey-sentinel"] : [])]) {
    for (const args of [["stop", unit], ["disable", unit]]) {
      spawnSync("systemctl", args, { stdio: "ignore", timeout: 30000 })
    }
    spawnSync("service", [unit, "stop"], { stdio: "ignore", timeout: 30000 })
  }
}

// ---------------------------------------------------------------------------

/**
 * The studio's browser tests (test/studio) drive the system's Chromium headless. As root with
 * apt-get it is installed when missing (Debian's `chromium` package: no download outside the
 * package manager); otherwise this says the command and the tests that need it will fail saying so.
 */
const ensureChromium = () => {
  const wanted = process.env.RELAY_TEST_CHROMIUM ?? "/usr/bin/chromium"
  if (existsSync(wanted)) return say(`chromium for the studio's browser tests: ${wanted}.`)
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0
  const hasApt = spawnSync("apt-get", ["--version"], { stdio: "ignore" }).status === 0
  if (!isRoot || !hasApt || dryRun) {
    return say(
      `no ${wanted} for the studio's browser tests: install it with \`apt-get install -y chromium\` (as root), or set RELAY_TEST_CHROMIUM.`
    )
  }
  say("installing chromium with apt-get for the studio's browser tests...")
  const install = () => spawnSync("apt-get", ["install", "-y", "chromium"], { stdio: "inherit" }).status === 0
  if (!install()) {
    spawnSync("apt-get", ["update"], { stdio: "inherit" })
    if (!install()) fail("apt-get could not install chromium (needed by the studio's browser tests).")
  }
}

if (forTests) ensureChromium()

if (!forTests && !sentinel && !cluster && externalDatabase()) {
  say("FALKORDB_URL/FALKORDB_HOST is set; the embedded server is not needed.")
  process.exit(0)
}

const modulePath = await findModule()
if (modulePath === undefined) {
  fail(
    `the FalkorDB module (${
      (await serverBinary()).MODULE_PACKAGE
    }, Linux x64 only) is not installed for ${process.platform}-${process.arch}, ` +
      `so ${DOCKER}.`
  )
}

const found = await findServer()
const sentinelMissing = sentinel && !hasSentinel()
const cliMissing = cluster && !hasCli()
if (found !== undefined && !sentinelMissing && !cliMissing && !dryRun) {
  say(
    `FalkorDB runs on ${found.command} ${found.version} with ${modulePath}${
      sentinel ? "; valkey-sentinel is there" : ""
    }${cluster ? "; valkey-cli is there" : ""}.`
  )
  process.exit(0)
}

const plan = installPlan([
  "valkey-server",
  ...(sentinel ? ["valkey-sentinel"] : []),
  ...(cluster ? ["valkey-tools"] : [])
])
if (plan === undefined && cliMissing) {
  fail(
    "valkey-cli is not installed and this system has no known package for it: install valkey-cli (valkey-tools) 7.2+ yourself."
  )
}
if (plan === undefined && found !== undefined) {
  say(
    `valkey-sentinel is not installed and this system has no known package for it; ${found.command} --sentinel is used instead.`
  )
  process.exit(0)
}
if (plan === undefined) {
  fail(
    "no redis-server or valkey-server 7.2+ was found and this system has no known package for one: " +
      `install valkey-server 7.2+ (or redis-server 7.2+) yourself, or ${DOCKER}.`
  )
}
if (typeof process.getuid !== "function" || process.getuid() !== 0) {
  if (cliMissing) fail(`valkey-cli is not installed; run as root: sudo sh -c "${plan.shell}"`)
  if (found !== undefined) {
    // The server binary runs in sentinel mode itself (scripts/team.mjs falls back to it).
    say(
      `valkey-sentinel is not installed (as root: sudo sh -c "${plan.shell}"); ${found.command} --sentinel is used instead.`
    )
    process.exit(0)
  }
  fail(`no redis-server or valkey-server 7.2+ was found; run as root: sudo sh -c "${plan.shell}"`)
}

if (found !== undefined) {
  say(`(dry run) ${found.command} ${found.version} would be used; showing the install path anyway.`)
}
say(
  `${
    found === undefined
      ? "no server for FalkorDB found: "
      : sentinelMissing
      ? "no valkey-sentinel found: "
      : cliMissing
      ? "no valkey-cli found: "
      : ""
  }installing ${
    ["valkey-server", ...(sentinel ? ["valkey-sentinel"] : []), ...(cluster ? ["valkey-tools"] : [])].join(", ")
  } with apt-get${plan.backports ? " from bookworm-backports" : ""}...`
)
if (plan.backports) {
  const present = existsSync(BACKPORTS_LIST) && readFileSync(BACKPORTS_LIST, "utf8").includes("bookworm-backports")
  if (!present) {
    if (dryRun) say(`(dry run) would write ${BACKPORTS_LIST}: ${BACKPORTS_LINE}`)
    else writeFileSync(BACKPORTS_LIST, `${BACKPORTS_LINE}\n`)
  }
}
for (const command of plan.commands) run(command)
quietPackagedService()
if (dryRun) process.exit(0)

const installed = await findServer()
if (installed === undefined) fail(`valkey-server was installed but does not run here; ${DOCKER}.`)
if (sentinel && !hasSentinel()) fail("valkey-sentinel was installed but does not run here.")
if (cluster && !hasCli()) fail("valkey-tools was installed but valkey-cli does not run here.")
say(`installed: FalkorDB runs on ${installed.command} ${installed.version}.`)
