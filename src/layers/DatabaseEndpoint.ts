import { Context, Effect, Layer, Redacted } from "effect"
import type { FalkorDBOptions } from "falkordb"
import { DatabaseError } from "../domain/errors.js"
import { Settings } from "../services/Settings.js"

/** Where the database is, resolved on every (re)connect so an embedded server that died is started again. */
export class DatabaseEndpoint extends Context.Tag("relay/DatabaseEndpoint")<DatabaseEndpoint, {
  readonly options: Effect.Effect<FalkorDBOptions, DatabaseError>
}>() {}

export const DatabaseEndpointLive = Layer.effect(
  DatabaseEndpoint,
  Effect.gen(function*() {
    const { database } = yield* Settings
    switch (database._tag) {
      case "Url":
        return { options: Effect.sync(() => ({ url: Redacted.value(database.url) })) }
      case "HostPort":
        return {
          options: Effect.sync(() => ({
            socket: { host: database.host, port: database.port },
            ...(database.password === null ? {} : { password: Redacted.value(database.password) })
          }))
        }
      case "Embedded":
        return {
          options: Effect.fail(new DatabaseError({ transient: false, detail: "embedded server not wired yet" }))
        }
    }
  })
)
