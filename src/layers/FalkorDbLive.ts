import { Duration, Effect, Layer, Option, SynchronizedRef } from "effect"
import { FalkorDB, type FalkorDBOptions } from "falkordb"
import { DatabaseError } from "../domain/errors.js"
import { type CypherParams, GraphDatabase } from "../services/GraphDatabase.js"
import { Settings } from "../services/Settings.js"
import { DatabaseEndpoint } from "./DatabaseEndpoint.js"
import { moduleVersion, serverVersion } from "./embedded/EmbeddedServer.js"
import { ensureSchema } from "./schema.js"

const connectTimeout = Duration.millis(1500)
const queryTimeout = Duration.seconds(2)

/** Server replies that mean "try again" rather than "this query is wrong". */
const transientReply = /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN)|timed out|timeout/i

/** Sorts a driver failure into transient (connection, timeout) or not; the text stays in the log. */
export const classify = (cause: unknown): DatabaseError => {
  const name = cause instanceof Error ? cause.constructor.name : typeof cause
  const message = cause instanceof Error ? cause.message : String(cause)
  const reply = name === "ErrorReply" || name === "SimpleError" || name === "BlobError"
  return new DatabaseError({ transient: !reply || transientReply.test(message), detail: `${name}: ${message}` })
}

const timedOut = (what: string) => () => new DatabaseError({ transient: true, detail: `${what} timed out` })

interface Connection {
  readonly db: FalkorDB
  readonly isOpen: () => boolean
}

export const FalkorDbLive = Layer.scoped(
  GraphDatabase,
  Effect.gen(function*() {
    const { graph: graphName } = yield* Settings
    const endpoint = yield* DatabaseEndpoint
    const current = yield* SynchronizedRef.make(Option.none<Connection>())
    let schemaReady = false

    const open = Effect.gen(function*() {
      const options: FalkorDBOptions = yield* endpoint.options
      const db = yield* Effect.tryPromise({
        // No silent reconnect loop and no offline queue: a dead server must fail calls fast.
        try: () =>
          FalkorDB.connect({
            ...options,
            socket: { ...options.socket, connectTimeout: Duration.toMillis(connectTimeout), reconnectStrategy: false },
            disableOfflineQueue: true
          } as unknown as FalkorDBOptions),
        catch: classify
      }).pipe(Effect.timeoutFail({ duration: connectTimeout, onTimeout: timedOut("connect") }))
      db.on("error", () => {}) // the failure surfaces on the next query, which re-makes the connection
      const client = yield* Effect.promise(() => db.connection)
      const connection: Connection = { db, isOpen: () => client.isReady }
      if (!schemaReady) {
        yield* ensureSchema(db.selectGraph(graphName)).pipe(
          Effect.tapError(() => Effect.promise(() => db.close().catch(() => undefined)))
        )
        schemaReady = true
      }
      return connection
    })

    /** The shared connection: made once even when many calls wait for it, re-made once it drops. */
    const connection = SynchronizedRef.modifyEffect(current, (existing) =>
      Option.isSome(existing) && existing.value.isOpen()
        ? Effect.succeed([existing.value, existing] as const)
        : Effect.gen(function*() {
          if (Option.isSome(existing)) yield* closeQuietly(existing.value)
          const made = yield* open
          return [made, Option.some(made)] as const
        }))

    const fastConnection = SynchronizedRef.get(current).pipe(
      Effect.flatMap((c) => Option.isSome(c) && c.value.isOpen() ? Effect.succeed(c.value) : connection)
    )

    const run = <Row>(mode: "query" | "roQuery", cypher: string, params: CypherParams | undefined) =>
      fastConnection.pipe(
        Effect.flatMap(({ db }) =>
          Effect.tryPromise({
            try: () => {
              const graph = db.selectGraph(graphName)
              const options = params === undefined ? undefined : { params: params as Record<string, never> }
              return mode === "query" ? graph.query<Row>(cypher, options) : graph.roQuery<Row>(cypher, options)
            },
            catch: classify
          })
        ),
        Effect.timeoutFail({ duration: queryTimeout, onTimeout: timedOut("query") }),
        Effect.map((reply) => reply.data ?? []),
        Effect.tapError((e) =>
          Effect.logWarning("FalkorDB query failed").pipe(Effect.annotateLogs({ detail: e.detail }))
        )
      )

    const closeQuietly = (c: Connection) => Effect.promise(() => c.db.close().catch(() => undefined))

    yield* Effect.addFinalizer(() =>
      SynchronizedRef.get(current).pipe(Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: closeQuietly })))
    )

    return GraphDatabase.of({
      graphName,
      write: (cypher, params) => run("query", cypher, params),
      read: (cypher, params) => run("roQuery", cypher, params),
      versions: fastConnection.pipe(
        Effect.flatMap(({ db }) =>
          Effect.tryPromise({
            try: async () => {
              const client = await db.connection
              return [await client.sendCommand(["MODULE", "LIST"]), await client.sendCommand(["INFO", "server"])] as const
            },
            catch: classify
          })
        ),
        Effect.timeoutFail({ duration: queryTimeout, onTimeout: timedOut("MODULE LIST") }),
        Effect.map(([modules, info]) => ({ module: moduleVersion(modules), server: serverVersion(info) }))
      ),
      dropGraph: fastConnection.pipe(
        Effect.flatMap(({ db }) =>
          Effect.tryPromise({ try: () => db.selectGraph(graphName).delete(), catch: classify })
        ),
        Effect.catchIf((e) => /empty key|invalid graph|not found/i.test(e.detail), () => Effect.void)
      )
    })
  })
)

