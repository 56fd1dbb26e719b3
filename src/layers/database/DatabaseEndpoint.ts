import { type ConfigError, Effect, Redacted } from "effect"
import type { FalkorDBOptions } from "falkordb"
import { DatabaseError } from "../../domain/errors.js"
import { EmbeddedServer } from "../../services/EmbeddedServer.js"
import { Settings } from "../../services/Settings.js"
import type { EmbeddedServerError } from "../embedded/EmbeddedServerError.js"
import { namesSentinels, sentinelConfig, sentinelEndpoint } from "./SentinelEndpoint.js"

/** How to reach the database, asked on every (re)connect. */
export interface Endpoint {
  readonly options: Effect.Effect<FalkorDBOptions, DatabaseError>
}

/**
 * Through Valkey Sentinel when FALKORDB_SENTINELS is set, else the settings' target: FALKORDB_URL,
 * FALKORDB_HOST/PORT, or the embedded server, resolved on every (re)connect so an embedded server that
 * died is started again.
 */
export const databaseEndpoint: Effect.Effect<
  Endpoint,
  ConfigError.ConfigError | EmbeddedServerError,
  Settings | EmbeddedServer
> = Effect.gen(function*() {
  const { database } = yield* Settings
  const sentinels = yield* sentinelConfig
  if (namesSentinels(sentinels.sentinels)) {
    return sentinelEndpoint(sentinels)
  }
  switch (database._tag) {
    case "Url":
      return { options: Effect.sync(() => ({ url: Redacted.value(database.url) })) } satisfies Endpoint
    case "HostPort":
      return {
        options: Effect.sync(() => ({
          socket: { host: database.host, port: database.port },
          ...(database.password === null ? {} : { password: Redacted.value(database.password) })
        }))
      } satisfies Endpoint
    case "Embedded": {
      const embedded = yield* EmbeddedServer
      // Started (or joined) once at start, so a missing server binary stops Relay with its one
      // sentence; later reconnects run it again, which restarts a server that died.
      yield* embedded.ensure
      const ensure = embedded.ensure.pipe(
        Effect.mapError((e) => new DatabaseError({ reason: "unreachable", detail: e.message }))
      )
      return {
        options: Effect.map(ensure, ({ password, socketPath }) => ({
          socket: { path: socketPath },
          password: Redacted.value(password)
        }))
      } satisfies Endpoint
    }
  }
})
