/** The server's password: random, generated once, kept in a 0600 file in the data dir. */
import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Option, Redacted } from "effect"
import * as Crypto from "node:crypto"
import { EmbeddedServerError } from "./EmbeddedServerError.js"

export const readPassword = (
  file: string
): Effect.Effect<Option.Option<Redacted.Redacted<string>>, never, FileSystem.FileSystem> =>
  FileSystem.FileSystem.pipe(
    Effect.flatMap((fs) => fs.readFileString(file)),
    Effect.map((s) => s.trim()),
    Effect.option,
    Effect.map(Option.filter((s) => s.length > 0)),
    Effect.map(Option.map(Redacted.make))
  )

/** Reads the password file, creating it (mode 0600) first if it is missing. */
export const ensurePassword = Effect.fn("relay/embedded/ensurePassword")(function*(file: string) {
  const fs = yield* FileSystem.FileSystem
  const existing = yield* readPassword(file)
  const unwritable = (e: PlatformError) =>
    new EmbeddedServerError({ message: `The password file ${file} could not be written (${e.message}).` })
  if (Option.isNone(existing)) {
    const fresh = Crypto.randomBytes(32).toString("base64url")
    yield* fs.writeFileString(file, `${fresh}\n`, { flag: "w", mode: 0o600 }).pipe(Effect.mapError(unwritable))
  }
  yield* fs.chmod(file, 0o600).pipe(Effect.mapError(unwritable))
  return yield* readPassword(file).pipe(
    Effect.flatMap(Option.match({
      onNone: () =>
        Effect.fail(new EmbeddedServerError({ message: `The password file ${file} could not be read back.` })),
      onSome: Effect.succeed
    }))
  )
})
