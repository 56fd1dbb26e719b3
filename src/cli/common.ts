/**
 * What the command-line tools (demo, seed, check-db) share: one way to describe the configured
 * database without its password, the database layers on the configured settings, and an edge
 * that logs to stderr and turns a failure into one sentence and an exit code.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { defaultTeardown, type Teardown } from "@effect/platform/Runtime"
import { Cause, ConfigError, Console, Effect, Logger, LogLevel, Option, Redacted, Schema } from "effect"
import { StderrLogger } from "../layers/assembly/stderrLogger.js"
import { EmbeddedServer } from "../services/EmbeddedServer.js"
import { GraphDatabase } from "../services/GraphDatabase.js"
import type { DatabaseTarget } from "../services/Settings.js"

/** A failure a CLI reports in one sentence, with its exit code. */
export class CliFailure extends Schema.TaggedError<CliFailure>()("CliFailure", {
  message: Schema.String,
  exitCode: Schema.Number
}) {}

/** The port docker-compose.yml publishes FalkorDB on. */
export const DOCKER_PORT = 6380

export interface DatabaseDescription {
  readonly kind: "embedded" | "configured" | "docker"
  /** One line, never holding a password. */
  readonly where: string
  /** Just the address: host:port, the masked URL or the socket. */
  readonly address: string
}

/** A FALKORDB_URL with its password replaced by ****, and any query string left out. */
export const maskUrl = (url: string): string => {
  try {
    const u = new URL(url)
    const user = u.username === "" && u.password === "" ? "" : `${u.username}${u.password === "" ? "" : ":****"}@`
    return `${u.protocol}//${user}${u.host}${u.pathname === "/" ? "" : u.pathname}${u.search === "" ? "" : "?…"}`
  } catch {
    return "(FALKORDB_URL is not shown: it could not be parsed as a URL)"
  }
}

const isLocal = (host: string) => ["127.0.0.1", "localhost", "::1", "[::1]"].includes(host)

/** Which database the settings point at, in words. */
export const describeDatabase = Effect.fn("relay/cli/describeDatabase")(function*(target: DatabaseTarget) {
  switch (target._tag) {
    case "Embedded": {
      // RELAY_DATA_DIR as the stack's provider read it (SettingsLive: the environment, then .env).
      const { layout } = yield* EmbeddedServer
      return {
        kind: "embedded",
        where: `embedded FalkorDB (data dir ${layout.dataDir}, socket ${layout.socketPath})`,
        address: layout.socketPath
      } satisfies DatabaseDescription
    }
    case "HostPort": {
      const password = target.password === null ? "no password" : "password set"
      const docker = target.port === DOCKER_PORT && isLocal(target.host)
      return {
        kind: docker ? "docker" : "configured",
        where: docker
          ? `Docker FalkorDB (docker-compose.yml) at ${target.host}:${target.port}, ${password}`
          : `configured FalkorDB at ${target.host}:${target.port} (FALKORDB_HOST/FALKORDB_PORT), ${password}`,
        address: `${target.host}:${target.port}`
      } satisfies DatabaseDescription
    }
    case "Sentinel": {
      const sentinels = target.sentinels.map((a) => `${a.host}:${a.port}`).join(",")
      return {
        kind: "configured",
        where: `FalkorDB master ${target.master} through the sentinels ${sentinels} (FALKORDB_SENTINELS)`,
        address: sentinels
      } satisfies DatabaseDescription
    }
    case "Cluster": {
      const nodes = target.nodes.map((a) => `${a.host}:${a.port}`).join(",")
      return {
        kind: "configured",
        where: `FalkorDB cluster through the nodes ${nodes} (FALKORDB_CLUSTER_NODES)`,
        address: nodes
      } satisfies DatabaseDescription
    }
    case "Url": {
      const url = Redacted.value(target.url)
      const port = Option.getOrNull(Option.liftThrowable(() => new URL(url))().pipe(Option.map((u) => Number(u.port))))
      const host = Option.getOrElse(Option.liftThrowable(() => new URL(url).hostname)(), () => "")
      const docker = port === DOCKER_PORT && isLocal(host)
      return {
        kind: docker ? "docker" : "configured",
        where: `${docker ? "Docker FalkorDB (docker-compose.yml)" : "configured FalkorDB"} at FALKORDB_URL ${
          maskUrl(url)
        }`,
        address: maskUrl(url)
      } satisfies DatabaseDescription
    }
  }
})

/** The secrets of a target, to scrub from anything printed (belt and braces: nothing should hold them). */
export const secretsOf = (target: DatabaseTarget): ReadonlyArray<string> => {
  switch (target._tag) {
    case "Embedded":
      return []
    case "HostPort":
    case "Cluster":
      return target.password === null ? [] : [Redacted.value(target.password)]
    case "Sentinel":
      return [target.password, target.sentinelPassword].flatMap((p) => p === null ? [] : [Redacted.value(p)])
    case "Url": {
      const url = Redacted.value(target.url)
      const password = Option.getOrElse(
        Option.liftThrowable(() => decodeURIComponent(new URL(url).password))(),
        () => ""
      )
      return [url, ...(password === "" ? [] : [password])]
    }
  }
}

/** The number of facts in the settings' graph. */
export const countFacts = GraphDatabase.pipe(
  Effect.flatMap((db) => db.read("MATCH (f:Fact) RETURN count(f) AS n", {}, Schema.Struct({ n: Schema.Number }))),
  Effect.map((rows) => rows[0]?.n ?? 0)
)

const exitWith = (code: number) =>
  Effect.sync(() => {
    process.exitCode = code
  })

const describeFailure = (e: unknown): string =>
  ConfigError.isConfigError(e)
    ? `The settings are not valid: ${String(e)}.`
    : typeof e === "object" && e !== null && "message" in e
    ? String(e.message)
    : "unexpected error"

/**
 * Runs a CLI program: a typed failure prints its one sentence on stderr and sets its exit code
 * (CliFailure's, else 1); a defect prints a generic line. Node's own runtime runs it.
 */
export const runCli = <E>(program: Effect.Effect<void, E, NodeContext.NodeContext>) =>
  program.pipe(
    Effect.catchAllCause((cause) => {
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) {
        const e = failure.value
        const code = e instanceof CliFailure ? e.exitCode : 1
        return Console.error(describeFailure(e)).pipe(Effect.zipRight(exitWith(code)))
      }
      if (Cause.isInterruptedOnly(cause)) return exitWith(130)
      return Console.error(`unexpected error: ${describeFailure(Cause.squash(cause))}`).pipe(
        Effect.zipRight(exitWith(1))
      )
    }),
    Effect.provide(NodeContext.layer),
    Effect.provide(StderrLogger),
    Logger.withMinimumLogLevel(LogLevel.Error),
    NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true, teardown: exitOnFailure })
  )

/**
 * A CLI that failed exits with its code even while a socket is still open: a connect to a server
 * that accepts and never answers cannot be cancelled, and would hold the process for good.
 */
const exitOnFailure: Teardown = (exit, onExit) => {
  const code = typeof process.exitCode === "number" ? process.exitCode : 0
  defaultTeardown(exit, (failed) => onExit(failed !== 0 ? failed : code))
}
