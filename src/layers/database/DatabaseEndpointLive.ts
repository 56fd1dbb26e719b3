import { Effect, Layer, Redacted, Schedule } from "effect"
import { DatabaseError } from "../../domain/errors.js"
import { DatabaseEndpoint } from "../../services/DatabaseEndpoint.js"
import { EmbeddedServer } from "../../services/EmbeddedServer.js"
import { Settings } from "../../services/Settings.js"
import { aofCheckEvery, rewriteLongTail } from "../embedded/aofTail.js"
import { sentinelEndpoint } from "./SentinelEndpoint.js"

/**
 * The settings' target: Sentinel's current master, FALKORDB_URL, FALKORDB_HOST/PORT, or the
 * embedded server, resolved on every (re)connect so an embedded server that died is started again.
 */
export const DatabaseEndpointLive = Layer.scoped(
  DatabaseEndpoint,
  Effect.gen(function*() {
    const { database } = yield* Settings
    switch (database._tag) {
      case "Sentinel":
        return sentinelEndpoint(database)
      case "Cluster":
        return {
          options: Effect.sync(() => database.password === null ? {} : { password: Redacted.value(database.password) }),
          clusterNodes: database.nodes
        }
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
        const embedded = yield* EmbeddedServer
        // Started (or joined) once at start, so a missing server binary stops Relay with its one
        // sentence; later reconnects run it again, which restarts a server that died.
        const started = yield* embedded.ensure
        // The append-only file is rewritten before its tail makes a restart slow (aofTail.ts).
        yield* Effect.forkScoped(
          rewriteLongTail(started.socketPath, started.password).pipe(
            Effect.ignore,
            Effect.repeat(Schedule.spaced(aofCheckEvery))
          )
        )
        const ensure = embedded.ensure.pipe(
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
