import { Context, Effect, Layer, Redacted } from "effect"
import type { FalkorDBOptions } from "falkordb"
import { DatabaseError } from "../domain/errors.js"
import { Settings } from "../services/Settings.js"
import { ensureEmbeddedServer } from "./embedded/EmbeddedServer.js"

/** Where the database is, resolved on every (re)connect so an embedded server that died is started again. */
export class DatabaseEndpoint extends Context.Tag("relay/DatabaseEndpoint")<DatabaseEndpoint, {
  readonly options: Effect.Effect<FalkorDBOptions, DatabaseError>
}>() {}

export const DatabaseEndpointLive = Layer.effect(
  DatabaseEndpoint,
  Effect.gen(function*() {
    const { configProvider, database } = yield* Settings
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
      case "Embedded": {
        // Started (or joined) once at start, so a missing server binary stops Relay with its one
        // sentence; later reconnects run it again, which restarts a server that died.
        const context = yield* Effect.context<Effect.Effect.Context<typeof ensureEmbeddedServer>>()
        // RELAY_DATA_DIR may come from .env like every other setting.
        const ensureHere = configProvider === undefined
          ? ensureEmbeddedServer
          : Effect.withConfigProvider(ensureEmbeddedServer, configProvider)
        yield* ensureHere
        const ensure = ensureHere.pipe(
          Effect.provide(context),
          Effect.mapError((e) => new DatabaseError({ reason: "unreachable", detail: e.message }))
        )
        return {
          options: Effect.map(ensure, ({ password, socketPath }) => ({
            socket: { path: socketPath },
            password: Redacted.value(password)
          }))
        }
      }
    }
  })
)
