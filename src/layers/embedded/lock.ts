/**
 * An exclusive start lock: a file created with flag "wx" (O_CREAT|O_EXCL), so
 * exactly one process holds it. It records "<pid> <token> <epoch ms>". A lock
 * is stale when its holder pid is dead or it is older than STALE_AFTER (a holder
 * never needs that long: its start is bounded by 10 s); a stale lock is removed
 * only if it still holds the same content we judged stale.
 */
import { FileSystem } from "@effect/platform"
import { Clock, Duration, Effect, Option } from "effect"
import * as Crypto from "node:crypto"
import { EmbeddedServerError } from "./EmbeddedServerError.js"
import { pidAlive } from "./processes.js"

// Above the longest legitimate start (10 s to daemonize + 10 s to answer), so a slow start keeps its lock.
export const STALE_AFTER = Duration.seconds(30)

export interface LockToken {
  readonly file: string
  readonly content: string
}

/** Some(token) if we now hold the lock; None if another process does. */
export const tryAcquire = Effect.fn("relay/embedded/lock/tryAcquire")(function*(file: string) {
  const fs = yield* FileSystem.FileSystem
  const now = yield* Clock.currentTimeMillis
  const content = `${process.pid} ${Crypto.randomBytes(8).toString("hex")} ${now}\n`
  return yield* fs.writeFileString(file, content, { flag: "wx", mode: 0o600 }).pipe(
    Effect.as(Option.some<LockToken>({ file, content })),
    Effect.catchAll((e) =>
      e._tag === "SystemError" && e.reason === "AlreadyExists"
        ? Effect.succeed(Option.none<LockToken>())
        : Effect.fail(
          new EmbeddedServerError({ message: `The start lock ${file} could not be created (${e.message}).` })
        )
    )
  )
})

/** Removes the lock if it is still ours. */
export const release = Effect.fn("relay/embedded/lock/release")(function*(token: LockToken) {
  const fs = yield* FileSystem.FileSystem
  const current = yield* fs.readFileString(token.file).pipe(Effect.option)
  if (Option.contains(current, token.content)) yield* fs.remove(token.file).pipe(Effect.ignore)
})

/** If the lock file is stale, removes it and answers true. */
export const breakIfStale = Effect.fn("relay/embedded/lock/breakIfStale")(function*(file: string) {
  const fs = yield* FileSystem.FileSystem
  const content = yield* fs.readFileString(file).pipe(Effect.option)
  if (Option.isNone(content)) return false // gone already: the next attempt may take it
  const now = yield* Clock.currentTimeMillis
  const [pidText, , atText] = content.value.trim().split(" ")
  const pid = Number.parseInt(pidText ?? "", 10)
  const at = Number.parseInt(atText ?? "", 10)
  const tooOld = (ms: number) => now - ms > Duration.toMillis(STALE_AFTER)
  let stale: boolean
  if (Number.isInteger(pid) && pid > 0 && Number.isInteger(at)) {
    stale = tooOld(at) || !(yield* pidAlive(pid))
  } else {
    // Created but not yet written, or garbage: judge by its mtime.
    const info = yield* fs.stat(file).pipe(Effect.option)
    stale = Option.isSome(info) &&
      Option.match(info.value.mtime, { onNone: () => true, onSome: (d) => tooOld(d.getTime()) })
  }
  if (!stale) return false
  const again = yield* fs.readFileString(file).pipe(Effect.option)
  if (!Option.contains(again, content.value)) return false
  yield* fs.remove(file).pipe(Effect.ignore)
  return true
})
