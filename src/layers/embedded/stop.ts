import type { FileSystem, Path } from "@effect/platform"
import { type Duration, Effect, Option } from "effect"
import type { EmbeddedLayout, StopResult } from "../../services/EmbeddedServer.js"
import { sendCommands } from "../database/serverCommands.js"
import { EmbeddedServerError, fail } from "./EmbeddedServerError.js"
import { currentLayout } from "./layout.js"
import { breakIfStale, release, tryAcquire } from "./lock.js"
import { readPassword } from "./password.js"
import { pidAlive, signalPid } from "./processes.js"
import { embeddedStatusAt } from "./status.js"
import { JOIN_WAIT, NotYet, pollUntil } from "./waiting.js"

export type { StopResult }

const waitGone = (pid: number, within: Duration.DurationInput) =>
  pollUntil(
    pidAlive(pid).pipe(Effect.flatMap((alive) => alive ? Effect.fail(new NotYet()) : Effect.succeed(true))),
    within,
    () => Effect.succeed(false)
  )

/** Holds the start lock while running `effect`, so no process starts the server meanwhile. */
export const withStartLock = <A, E, R>(layout: EmbeddedLayout, effect: Effect.Effect<A, E, R>) =>
  pollUntil(
    tryAcquire(layout.lockFile).pipe(
      Effect.flatMap(Option.match({
        onSome: Effect.succeed,
        onNone: () => breakIfStale(layout.lockFile).pipe(Effect.zipRight(Effect.fail(new NotYet())))
      }))
    ),
    JOIN_WAIT,
    () => Effect.fail(fail(`Another process holds ${layout.lockFile}; try again in a few seconds.`))
  ).pipe(Effect.flatMap((token) => effect.pipe(Effect.ensuring(release(token)))))

/**
 * Stops the embedded server of this data dir: SHUTDOWN (which fsyncs the AOF),
 * then SIGTERM if it is still alive after 10 s. A stopped server is not an error.
 */
export const stopEmbeddedServerAt = (
  layout: EmbeddedLayout
): Effect.Effect<StopResult, EmbeddedServerError, FileSystem.FileSystem | Path.Path> =>
  withStartLock(
    layout,
    Effect.gen(function*() {
      const status = yield* embeddedStatusAt(layout).pipe(Effect.option)
      const pid = Option.flatMap(status, (s) => s.pid)
      const running = Option.exists(status, (s) => s.running)
      if (running) {
        const password = yield* readPassword(layout.passwordFile)
        if (Option.isSome(password)) {
          yield* sendCommands(layout.socketPath, password.value, [["SHUTDOWN"]], "5 seconds").pipe(Effect.ignore)
        }
      }
      if (Option.isNone(pid)) return { dataDir: layout.dataDir, wasRunning: running, pid }
      if (!(yield* waitGone(pid.value, running ? "10 seconds" : "0 millis"))) {
        yield* signalPid(pid.value, "SIGTERM")
        if (!(yield* waitGone(pid.value, "10 seconds"))) {
          return yield* fail(`The embedded FalkorDB server (pid ${pid.value}) did not stop within 20 seconds.`)
        }
      }
      return { dataDir: layout.dataDir, wasRunning: true, pid }
    })
  ).pipe(Effect.withSpan("relay/embedded/stopEmbeddedServer"))

/** The same for the data dir the current settings name. */
export const stopEmbeddedServer = Effect.flatMap(currentLayout, stopEmbeddedServerAt)
