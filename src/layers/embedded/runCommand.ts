/** Runs a short command to its end and collects its exit code and output. */
import { Command, type CommandExecutor } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Duration, Effect, Stream } from "effect"

export interface CommandResult {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

const text = (stream: Stream.Stream<Uint8Array, PlatformError>) => stream.pipe(Stream.decodeText(), Stream.mkString)

/** Fails with the PlatformError of a spawn that could not happen (e.g. ENOENT) or a timeout. */
export const runCommand = (
  command: Command.Command,
  timeout: Duration.DurationInput
): Effect.Effect<CommandResult, PlatformError | "timeout", CommandExecutor.CommandExecutor> =>
  Effect.scoped(
    Effect.gen(function*() {
      const proc = yield* Command.start(command)
      const [stdout, stderr, exitCode] = yield* Effect.all(
        [text(proc.stdout), text(proc.stderr), proc.exitCode],
        { concurrency: "unbounded" }
      )
      return { exitCode, stdout, stderr }
    })
  ).pipe(Effect.timeoutFail({ duration: timeout, onTimeout: () => "timeout" as const }))
