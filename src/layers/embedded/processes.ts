/** Process liveness and signals, by pid. Zombies (state Z on Linux) count as dead. */
import { FileSystem } from "@effect/platform"
import { Effect, Option } from "effect"

export const pidAlive = Effect.fn("relay/embedded/pidAlive")(function*(pid: number) {
  const exists = yield* Effect.sync(() => {
    try {
      process.kill(pid, 0)
      return true
    } catch (e) {
      // EPERM: alive but not ours to signal.
      return (e as NodeJS.ErrnoException).code === "EPERM"
    }
  })
  if (!exists || process.platform !== "linux") return exists
  const fs = yield* FileSystem.FileSystem
  const stat = yield* fs.readFileString(`/proc/${pid}/stat`).pipe(Effect.option)
  // "<pid> (<comm>) <state> ...": the state follows the last ")".
  const state = Option.map(stat, (s) => s.slice(s.lastIndexOf(")") + 2, s.lastIndexOf(")") + 3))
  return !Option.contains(state, "Z")
})

/** Sends `signal`; true if it was delivered. */
export const signalPid = (pid: number, signal: NodeJS.Signals): Effect.Effect<boolean> =>
  Effect.sync(() => {
    try {
      process.kill(pid, signal)
      return true
    } catch {
      return false
    }
  })

/**
 * The pid in `pidFile` if that process is alive and, where /proc lets us see
 * its title (Linux: "valkey-server unixsocket:<path>"), serves `socketPath`.
 */
export const livePidFromFile = Effect.fn("relay/embedded/livePidFromFile")(function*(
  pidFile: string,
  socketPath: string
) {
  const fs = yield* FileSystem.FileSystem
  const text = yield* fs.readFileString(pidFile).pipe(Effect.option)
  const pid = Option.flatMap(text, (t) => {
    const n = Number.parseInt(t.trim(), 10)
    return Number.isInteger(n) && n > 0 ? Option.some(n) : Option.none()
  })
  if (Option.isNone(pid)) return Option.none()
  if (!(yield* pidAlive(pid.value))) return Option.none()
  if (process.platform !== "linux") return pid
  const cmdline = yield* fs.readFileString(`/proc/${pid.value}/cmdline`).pipe(Effect.option)
  return Option.isNone(cmdline) || cmdline.value.includes(socketPath) ? pid : Option.none()
})
