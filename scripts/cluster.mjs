#!/usr/bin/env node
// `npm run cluster`: a Valkey cluster on loopback for trying Relay past one primary: 3 primaries, each
// with 2 replicas, every node running the FalkorDB module (`--cluster-enabled yes`,
// `cluster-node-timeout 2000`, made with `valkey-cli --cluster create ... --cluster-replicas 2`).
// Every workspace is a graph, and a graph is one key: it lives whole on the shard that owns its slot.
// It prints the settings Relay needs (FALKORDB_CLUSTER_NODES, FALKORDB_PASSWORD) and leaves the nine
// servers running; `npm run cluster -- stop` stops them. `startCluster` is what `npm run test:cluster`
// starts (its processes are the caller's children, stopped by `stop()`).
// Needs `npm run build` (it finds the server binary and module as Relay's embedded launcher does)
// and valkey-cli (`node scripts/setup-db.mjs --cluster` installs it where it can).
import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import { spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"

const dist = new URL("../dist/layers/embedded/", import.meta.url)
const { findServerBinary, requireModule } = await import(new URL("serverBinary.js", dist).href)
const { runtimeConfig } = await import(new URL("serverConfig.js", dist).href)
// One way to ask a server and to pick a free port for every script that starts servers.
const { ask, freePort } = await import(new URL("./team.mjs", import.meta.url).href)

const serverAndModule = () =>
  Effect.runPromise(Effect.all([findServerBinary, requireModule]).pipe(Effect.provide(NodeContext.layer)))
    .then(([binary, module]) => ({ bin: binary.command, module }))

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Asks one node a command; null when it does not answer (scripts/team.mjs's). */
export { ask }

const field = (info, key) =>
  typeof info === "string" ? new RegExp(`^${key}:(.*)$`, "m").exec(info)?.[1]?.trim() : undefined

/** The node's arguments: each node announces its own address and port (docker-compose.cluster.yml does the same). */
const nodeArgs = ({ port, dir, password, module }) => [
  "--port",
  String(port),
  "--bind",
  "127.0.0.1",
  "--dir",
  dir,
  "--requirepass",
  password,
  "--masterauth",
  password,
  "--cluster-enabled",
  "yes",
  "--cluster-config-file",
  join(dir, "nodes.conf"),
  "--cluster-node-timeout",
  "2000",
  // A shard without a primary must not stop the others: workspaces on the other shards keep working.
  "--cluster-require-full-coverage",
  "no",
  "--cluster-announce-ip",
  "127.0.0.1",
  "--cluster-announce-port",
  String(port),
  "--appendonly",
  "yes",
  "--appendfsync",
  "always",
  "--save",
  "",
  "--loadmodule",
  module
]

/** The last lines each node wrote, by port. */
const tails = new Map()

const launch = (bin, args, port, detached) =>
  new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: detached ? "ignore" : ["ignore", "pipe", "pipe"], detached })
    if (detached) {
      child.unref()
      return resolve(child)
    }
    let out = ""
    const onData = (chunk) => {
      out = (out + chunk.toString()).slice(-8000)
      tails.set(port, out)
      if (/Ready to accept connections/i.test(out)) resolve(child)
    }
    child.stdout.on("data", onData)
    child.stderr.resume()
    child.once("exit", (code) => reject(new Error(`node ${port} exited (${code}): ${out.slice(-400)}`)))
  })

/** Polls `check` every 100 ms up to `tries` times; fails saying `what`. */
const until = async (check, tries, what) => {
  for (let i = 0; i < tries; i++) {
    if (await check()) return
    await sleep(100)
  }
  throw new Error(`${what} within ${tries / 10} s`)
}

/**
 * Starts 9 nodes (ports `base`.. when given, else free ones), makes them a cluster of 3 shards, sets
 * FalkorDB's runtime settings on each, and waits until every node sees the cluster ok and every
 * replica in sync. `detached` leaves the nodes running after this process ends (`npm run cluster`).
 */
export const startCluster = async (
  { base, password = randomBytes(18).toString("base64url"), dir, detached = false } = {}
) => {
  const root = dir ?? mkdtempSync(join(tmpdir(), "relay-cluster-"))
  const { bin, module } = await serverAndModule()
  const ports = base === undefined
    ? await Promise.all(Array.from({ length: 9 }, freePort))
    : Array.from({ length: 9 }, (_, i) => base + i)
  const children = new Map()
  const start = async (port) => {
    const d = join(root, String(port))
    mkdirSync(d, { recursive: true })
    children.set(port, await launch(bin, nodeArgs({ port, dir: d, password, module }), port, detached))
  }
  await Promise.all(ports.map(start))
  if (detached) {
    await until(
      async () => (await Promise.all(ports.map((p) => ask(p, password, ["PING"])))).every((r) => r === "PONG"),
      100,
      "the nodes did not answer"
    )
  }
  const create = spawnSync(
    "valkey-cli",
    ["--cluster", "create", ...ports.map((p) => `127.0.0.1:${p}`), "--cluster-replicas", "2", "--cluster-yes"],
    { encoding: "utf8", env: { ...process.env, REDISCLI_AUTH: password }, timeout: 60_000 }
  )
  if (create.status !== 0) {
    throw new Error(
      `valkey-cli --cluster create failed: ${
        `${create.stdout}${create.stderr}`.trim().split("\n").slice(-5).join("\n")
      }`
    )
  }
  // Writes replicate as queries, never effects (src/layers/database/effectsReplication.ts), and a
  // query's TIMEOUT bounds writes: on every node, since any replica may become its shard's primary.
  for (const port of ports) {
    for (const command of runtimeConfig) {
      const reply = await ask(port, password, command)
      if (reply !== "OK") throw new Error(`node ${port} refused ${command.join(" ")}: ${String(reply)}`)
    }
  }
  await until(
    async () => {
      const infos = await Promise.all(ports.map((p) => ask(p, password, ["CLUSTER", "INFO"])))
      return infos.every((i) => field(i, "cluster_state") === "ok" && field(i, "cluster_known_nodes") === "9")
    },
    300,
    "the cluster was not ok on every node"
  )
  await until(
    async () => {
      const infos = await Promise.all(ports.map((p) => ask(p, password, ["INFO", "replication"])))
      return infos.every((i) =>
        field(i, "role") === "master" ? field(i, "connected_slaves") === "2" : field(i, "master_link_status") === "up"
      )
    },
    300,
    "the replicas were not in sync"
  )
  const stopOne = (child) =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once("exit", () => resolve())
      child.kill("SIGTERM")
    })
  const nodes = ports.map((p) => `127.0.0.1:${p}`).join(",")
  return {
    ports,
    password,
    dir: root,
    pids: ports.map((p) => children.get(p).pid),
    env: { FALKORDB_CLUSTER_NODES: nodes, FALKORDB_PASSWORD: password },
    /** The primaries now, each with the slot ranges it serves (from CLUSTER SHARDS of a live node). */
    primaries: async () => {
      for (const port of ports) {
        const reply = await ask(port, password, ["CLUSTER", "SLOTS"])
        if (!Array.isArray(reply)) continue
        return reply.map(([from, to, primary]) => ({ from, to, port: Number(primary[1]) }))
      }
      return []
    },
    /** SIGKILL one node, as a crash would. */
    kill: (port) =>
      new Promise((resolve) => {
        const child = children.get(port)
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGKILL")
      }),
    /** The last lines a node wrote. */
    logs: (port) => tails.get(port) ?? "",
    stop: () => Promise.all([...children.values()].map(stopOne))
  }
}

const stateFile = join(process.env.RELAY_CLUSTER_DIR ?? join(tmpdir(), "relay-cluster"), "cluster.json")

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  if (process.argv[2] === "stop") {
    if (!existsSync(stateFile)) {
      process.stdout.write(`relay cluster: none running (no ${stateFile})\n`)
      process.exit(0)
    }
    const { pids, dir } = JSON.parse(readFileSync(stateFile, "utf8"))
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGTERM")
      } catch {
        // already gone
      }
    }
    rmSync(stateFile)
    process.stdout.write(`relay cluster: stopped ${pids.length} nodes (data kept in ${dir})\n`)
    process.exit(0)
  }
  if (existsSync(stateFile)) {
    process.stderr.write(`relay cluster: one is running already (${stateFile}); \`npm run cluster -- stop\` first\n`)
    process.exit(1)
  }
  const base = Number(process.env.RELAY_CLUSTER_BASE_PORT ?? 7101)
  const dir = join(tmpdir(), "relay-cluster", `data-${base}`)
  rmSync(dir, { recursive: true, force: true })
  const cluster = await startCluster({ base, dir, detached: true })
  mkdirSync(join(stateFile, ".."), { recursive: true })
  writeFileSync(stateFile, JSON.stringify({ pids: cluster.pids, dir: cluster.dir, ports: cluster.ports }), {
    mode: 0o600
  })
  const shards = await cluster.primaries()
  process.stdout.write(
    [
      `relay cluster: 9 nodes on 127.0.0.1:${cluster.ports[0]}-${cluster.ports[8]}, 3 shards (primaries ${
        shards.map((s) => `${s.port} slots ${s.from}-${s.to}`).join(", ")
      }), data in ${cluster.dir}`,
      "Run Relay against it with:",
      ...Object.entries(cluster.env).map(([k, v]) => `  export ${k}=${v}`),
      "  npm run token -- create --name alice-cursor --workspace acme",
      "  npm run serve:http",
      "`npm run cluster -- stop` stops all nine."
    ].join("\n") + "\n"
  )
}
