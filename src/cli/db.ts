/**
 * `npm run db -- status|start|stop [--json]`: the embedded FalkorDB server of
 * this user's data dir (RELAY_DATA_DIR, else the platform's data directory).
 * Prints whether it runs, its pid, data dir, socket and versions; never the password.
 */
import { Console, Effect, Option } from "effect"
import { SettingsLive } from "../layers/assembly/SettingsLive.js"
import { embeddedStack } from "../layers/assembly/stacks.js"
import { EmbeddedServer, type EmbeddedStatus } from "../services/EmbeddedServer.js"
import { Settings } from "../services/Settings.js"
import { runCli } from "./common.js"

const USAGE = "usage: node dist/cli/db.js status|start|stop [--json]"

const show = (s: EmbeddedStatus, json: boolean) =>
  json
    ? Console.log(JSON.stringify({
      running: s.running,
      loading: s.loading,
      pid: Option.getOrNull(s.pid),
      dataDir: s.dataDir,
      socketPath: s.socketPath,
      moduleVersion: Option.getOrNull(s.moduleVersion),
      serverVersion: Option.getOrNull(s.serverVersion)
    }))
    : Console.log([
      `running:         ${
        s.running ? s.loading ? "yes, still loading its files (calls wait until it is done)" : "yes" : "no"
      }`,
      `pid:             ${Option.getOrElse(Option.map(s.pid, String), () => "-")}`,
      `data dir:        ${s.dataDir}`,
      `socket:          ${s.socketPath}`,
      `FalkorDB module: ${Option.getOrElse(s.moduleVersion, () => "-")}`,
      `server:          ${Option.getOrElse(s.serverVersion, () => "-")}`
    ].join("\n"))

/** Where Relay is set to a cluster, the embedded server is one node on a unix socket that it does not use. */
const onCluster = "Relay is set to a FalkorDB cluster (FALKORDB_CLUSTER_NODES), not the embedded server"

const commands = Effect.gen(function*() {
  const server = yield* EmbeddedServer
  const args = process.argv.slice(2)
  const json = args.includes("--json")
  const command = args.filter((a) => a !== "--json")[0] ?? "status"
  const cluster = (yield* Settings).database._tag === "Cluster"
  if (cluster && (command === "start" || command === "stop")) {
    yield* Console.error(
      `${onCluster}: \`npm run db -- ${command}\` would only ${command} that unused server. ` +
        "`npm run cluster` (and `-- stop`) runs a local cluster; `npm run check-db` checks the one set."
    )
    return yield* Effect.sync(() => {
      process.exitCode = 2
    })
  }
  if (cluster && !json) yield* Console.error(`${onCluster}; the embedded server's status, unused:`)
  switch (command) {
    case "status":
      return yield* server.status.pipe(Effect.flatMap((s) => show(s, json)))
    case "start":
      yield* server.ensure
      return yield* server.status.pipe(Effect.flatMap((s) => show(s, json)))
    case "stop": {
      const r = yield* server.stop
      const pid = Option.getOrNull(r.pid)
      return yield* json
        ? Console.log(JSON.stringify({ stopped: r.wasRunning, pid, dataDir: r.dataDir }))
        : Console.log(
          r.wasRunning
            ? `stopped the embedded FalkorDB server (pid ${pid ?? "?"})`
            : "the embedded FalkorDB server was not running"
        )
    }
    default:
      yield* Console.error(USAGE)
      return yield* Effect.sync(() => {
        process.exitCode = 2
      })
  }
})

/**
 * RELAY_DATA_DIR and the rest are read as the server reads them: the environment, then .env. A
 * server that cannot be started or stopped prints its one sentence and exits 1 (runCli).
 */
runCli(commands.pipe(Effect.provide(embeddedStack(SettingsLive))))
