#!/usr/bin/env node
// `npm run team`: a replicated FalkorDB on loopback for trying team mode: a primary, two replicas and
// three Valkey Sentinels (quorum 2), each on its own port. Two replicas, because with
// RELAY_MIN_REPLICAS=1 a promoted replica with no replica of its own can confirm no write until the
// killed primary comes back: the second replica is re-pointed at the new primary by the sentinels and
// confirms writes again within a second of the promotion. It prints the settings Relay needs and
// runs until Ctrl-C. `startTeam` is also what `npm run test:failover` starts.
// Needs `npm run build` (it finds the server binary and module as Relay's embedded launcher does)
// and a server that runs in sentinel mode: valkey-sentinel, or valkey-server/redis-server itself
// (`--sentinel`); `node scripts/setup-db.mjs --sentinel` installs valkey-sentinel where it can.
import { NodeContext } from "@effect/platform-node"
import { Effect, Redacted } from "effect"
import { spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"

const dist = new URL("../dist/layers/embedded/", import.meta.url)
const { findServerBinary, requireModule } = await import(new URL("serverBinary.js", dist).href)
const { sendCommands } = await import(new URL("../database/serverCommands.js", dist).href)

const serverAndModule = () =>
  Effect.runPromise(Effect.all([findServerBinary, requireModule]).pipe(Effect.provide(NodeContext.layer)))
    .then(([binary, module]) => ({ bin: binary.command, module }))

/** valkey-sentinel if installed, else the server binary in sentinel mode (the same program). */
const sentinelCommand = (serverBin) => {
  const probe = spawnSync("valkey-sentinel", ["--version"], { encoding: "utf8" })
  return probe.status === 0 ? { bin: "valkey-sentinel", args: [] } : { bin: serverBin, args: ["--sentinel"] }
}

const waitFor = (child, pattern, what) =>
  new Promise((resolve, reject) => {
    let out = ""
    const onData = (chunk) => {
      out += chunk.toString()
      if (pattern.test(out)) {
        child.stdout.off("data", onData)
        child.stdout.resume()
        resolve()
      }
    }
    child.stdout.on("data", onData)
    child.stderr.resume()
    child.once("exit", (code) => reject(new Error(`${what} exited (${code}): ${out.slice(-400)}`)))
  })

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** A port free on loopback now (the system's pick), for runs that must not collide with anything. */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })

/** Asks one server a command; null when it does not answer. */
export const ask = (port, password, command) =>
  Effect.runPromise(
    sendCommands({ host: "127.0.0.1", port }, password === null ? null : Redacted.make(password), [command], "1 second")
      .pipe(
        Effect.map(([reply]) => reply),
        Effect.orElseSucceed(() => null)
      )
  )

/** The last lines each process wrote (sentinels log their +sdown, +try-failover, -failover-abort-*). */
const tails = new Map()

const launch = (bin, args, ready, what) => {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] })
  tails.set(what, "")
  child.stdout.on("data", (chunk) => tails.set(what, ((tails.get(what) ?? "") + chunk.toString()).slice(-8000)))
  return waitFor(child, ready, what).then(() => child)
}

/**
 * Starts the six processes. Ports are `base` upward (sentinels at base+20000..) when `base` is
 * given, else free ports the system picks; returns their ports, the
 * environment Relay needs, `kill(role)` (SIGKILL) and `stop()`.
 */
export const startTeam = async ({ base, password = randomBytes(18).toString("base64url"), dir } = {}) => {
  const root = dir ?? mkdtempSync(join(tmpdir(), "relay-team-"))
  const { bin, module } = await serverAndModule()
  const ports = base === undefined
    ? await (async () => {
      const [primary, replica, replica2, ...sentinels] = await Promise.all(Array.from({ length: 6 }, freePort))
      return { primary, replica, replica2, sentinels }
    })()
    : { primary: base, replica: base + 1, replica2: base + 2, sentinels: [base + 20000, base + 20001, base + 20002] }
  const data = (name) => {
    const d = join(root, name)
    mkdirSync(d, { recursive: true })
    return d
  }
  const serverArgs = (name, port) => [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    data(name),
    "--requirepass",
    password,
    "--masterauth",
    password,
    "--loadmodule",
    module,
    // Writes reach the replicas as queries, never as effects: FalkorDB 4.16.3 replicas crashed applying
    // effects, and a memory replayed from them lost properties (src/layers/database/effectsReplication.ts).
    "EFFECTS_THRESHOLD",
    "1000000000",
    "--save",
    "",
    "--appendonly",
    "no"
  ]
  const processes = {}
  const argsOf = {
    primary: serverArgs("primary", ports.primary),
    replica: [...serverArgs("replica", ports.replica), "--replicaof", "127.0.0.1", String(ports.primary)],
    replica2: [...serverArgs("replica2", ports.replica2), "--replicaof", "127.0.0.1", String(ports.primary)]
  }
  processes.primary = await launch(bin, argsOf.primary, /Ready to accept connections/i, "primary")
  ;[processes.replica, processes.replica2] = await Promise.all(
    ["replica", "replica2"].map((role) => launch(bin, argsOf[role], /Ready to accept connections/i, role))
  )
  // The sentinels must see the replicas in sync before they can promote one.
  for (const role of ["replica", "replica2"]) {
    for (let i = 0; i < 100; i++) {
      const info = await ask(ports[role], password, ["INFO", "replication"])
      if (typeof info === "string" && /master_link_status:up/.test(info)) break
      await sleep(100)
    }
  }
  const sentinel = sentinelCommand(bin)
  processes.sentinels = await Promise.all(ports.sentinels.map((port, i) => {
    const conf = join(data(`sentinel-${i}`), "sentinel.conf")
    writeFileSync(
      conf,
      [
        `port ${port}`,
        "bind 127.0.0.1",
        `dir ${data(`sentinel-${i}`)}`,
        `sentinel monitor relay 127.0.0.1 ${ports.primary} 2`,
        `sentinel auth-pass relay ${password}`,
        // Down after 2 s without a reply: on a loaded 2-core machine a server busy replaying writes
        // can miss a 1 s window, and a replica marked down is no candidate for promotion (CI runs saw
        // no promotion within 30 s). failover-timeout also spaces out a failover that must start
        // again (a split vote waits twice it), so it is kept short.
        "sentinel down-after-milliseconds relay 2000",
        "sentinel failover-timeout relay 3000",
        "sentinel parallel-syncs relay 1"
      ].join("\n") + "\n"
    )
    return launch(sentinel.bin, [conf, ...sentinel.args], /\+monitor master/, `sentinel ${port}`)
  }))
  // A sentinel learns the replicas from the master's INFO (then every 10 s) and the other sentinels
  // from their hellos (every 2 s): killed before that, the master has no replica any sentinel may
  // promote ("-failover-abort-no-good-slave" until the test gave up, once in CI). Ready means every
  // sentinel knows both replicas, up, and both other sentinels.
  const known = async (port) => {
    const master = await ask(port, null, ["SENTINEL", "MASTER", "relay"])
    const replicas = await ask(port, null, ["SENTINEL", "REPLICAS", "relay"])
    const field = (pairs, key) => Array.isArray(pairs) ? pairs[pairs.indexOf(key) + 1] : undefined
    return Array.isArray(replicas) && replicas.length === 2 &&
      replicas.every((r) => field(r, "flags") === "slave") &&
      Number(field(master, "num-other-sentinels")) === 2
  }
  for (let i = 0; !(await Promise.all(ports.sentinels.map(known))).every(Boolean); i++) {
    if (i >= 200) throw new Error("the sentinels did not learn the replicas and each other within 20 s")
    await sleep(100)
  }
  const all = () => [processes.primary, processes.replica, processes.replica2, ...processes.sentinels]
  const stopOne = (child) =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once("exit", () => resolve())
      child.kill("SIGTERM")
    })
  return {
    ports,
    password,
    dir: root,
    env: {
      FALKORDB_SENTINELS: ports.sentinels.map((p) => `127.0.0.1:${p}`).join(","),
      FALKORDB_SENTINEL_MASTER: "relay",
      FALKORDB_PASSWORD: password,
      RELAY_MIN_REPLICAS: "1"
    },
    /** SIGKILL one of the three data servers, as a crash would. */
    kill: (role) =>
      new Promise((resolve) => {
        const child = processes[role]
        child.once("exit", () => resolve())
        child.kill("SIGKILL")
      }),
    /**
     * Starts a killed server again, as its supervisor would, as a replica of the master the sentinels
     * name now. Do it only once they have promoted the other: back sooner, empty and a master by its
     * own arguments, it could be taken for the master still. (Started with its first arguments, the
     * sentinels would still make it a replica, but only on their next 10 s look at it.)
     */
    restart: async (role) => {
      const reply = await ask(ports.sentinels[0], null, ["SENTINEL", "get-master-addr-by-name", "relay"])
      const own = serverArgs(role, ports[role])
      const args = Array.isArray(reply) ? [...own, "--replicaof", String(reply[0]), String(reply[1])] : argsOf[role]
      processes[role] = await launch(bin, args, /Ready to accept connections/i, role)
    },
    /** The last lines each process wrote, by role (the sentinels as "sentinel <port>"). */
    logs: () => Object.fromEntries(tails),
    /**
     * What the first sentinel knows of each replica (flags such as s_down, master-link-down-time,
     * info-refresh, last-ok-ping-reply), for saying why a failover found "no good slave".
     */
    replicasSeen: () => ask(ports.sentinels[0], null, ["SENTINEL", "REPLICAS", "relay"]),
    /** The master the sentinels name now ("host:port"), or null. */
    master: async () => {
      const reply = await ask(ports.sentinels[0], null, ["SENTINEL", "get-master-addr-by-name", "relay"])
      return Array.isArray(reply) ? `${reply[0]}:${reply[1]}` : null
    },
    stop: () => Promise.all(all().map(stopOne))
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const team = await startTeam({ base: Number(process.env.RELAY_TEAM_BASE_PORT ?? 6391) })
  process.stdout.write(
    [
      `relay team: primary 127.0.0.1:${team.ports.primary}, replicas 127.0.0.1:${team.ports.replica} and ` +
      `127.0.0.1:${team.ports.replica2}, ` +
      `sentinels ${team.env.FALKORDB_SENTINELS} (data in ${team.dir})`,
      "Run Relay against it with:",
      ...Object.entries(team.env).map(([k, v]) => `  export ${k}=${v}`),
      "  npm run token -- create --name alice-cursor --workspace acme",
      "  npm run serve:http",
      "Ctrl-C stops all six."
    ].join("\n") + "\n"
  )
  const shutdown = () => team.stop().then(() => process.exit(0))
  process.once("SIGINT", shutdown)
  process.once("SIGTERM", shutdown)
}
