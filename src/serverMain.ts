import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { defaultTeardown, type Teardown } from "@effect/platform/Runtime"
import { Cause, ConfigError, Console, Effect, Layer, Option } from "effect"
import { SettingsLive } from "./layers/assembly/SettingsLive.js"
import { relayStack, teamStack } from "./layers/assembly/stacks.js"
import { StderrLogger } from "./layers/assembly/stderrLogger.js"
import { guardDriverErrors } from "./layers/database/driverGuard.js"
import { RankDaemonLive } from "./layers/factStore/FactStoreLive.js"
import { serveStdio } from "./mcp/serveStdio.js"
import { warmUp } from "./mcp/warmUp.js"

const startFailure = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) return "unexpected error (see above)"
  const e = failure.value
  if (ConfigError.isConfigError(e)) return String(e)
  return typeof e === "object" && e !== null && "message" in e ? String(e.message) : "unexpected error"
}

/**
 * Once the program is over, nothing of Relay's is left to finish: calls were interrupted and the
 * connection closed. But a connect given up on while the database is paused keeps its socket until
 * the database answers, which may be never, and stdin may still be open after the MCP transport
 * closed. Let the process end by itself (stdout flushed), and end it after a short grace if a
 * handle like those is still holding it.
 */
const exitGrace = 500
const teardown: Teardown = (exit, onExit) =>
  defaultTeardown(exit, (code) => {
    process.exitCode = code
    onExit(code)
    setTimeout(() => process.exit(code), exitGrace).unref()
  })

/** `relay --http`: team mode over Streamable HTTP (src/http); without it, one client over stdio. */
const serve = process.argv.slice(2).includes("--http")
  // Loaded only for team mode: the HTTP edge and OAuth (express and its parsers) are most of what a
  // stdio start would otherwise compile before its first answer.
  ? Effect.flatMap(
    Effect.promise(() => import("./http/serveHttp.js")),
    ({ serveHttp }) => Effect.provide(Effect.scoped(serveHttp), teamStack(SettingsLive))
  )
  : Effect.provide(
    Effect.scoped(Effect.zipRight(Effect.forkScoped(warmUp), serveStdio)),
    RankDaemonLive.pipe(Layer.provideMerge(relayStack(SettingsLive)))
  )

guardDriverErrors.pipe(
  Effect.zipRight(serve),
  Effect.provide(StderrLogger),
  // A start that cannot work (no server binary, bad settings) says what to do in one sentence.
  Effect.tapErrorCause((cause) => Console.error(`relay could not start: ${startFailure(cause)}`)),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true, teardown })
)
