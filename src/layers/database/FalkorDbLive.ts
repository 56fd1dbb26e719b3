import { Duration, Effect, Exit, FiberRef, Layer, Option, Ref, SynchronizedRef } from "effect"
import { FalkorDB, type FalkorDBOptions } from "falkordb"
import { DatabaseError } from "../../domain/errors.js"
import { DatabaseEndpoint } from "../../services/DatabaseEndpoint.js"
import { type CypherParams, GraphDatabase, ownQueryTimeout, queryTimeout } from "../../services/GraphDatabase.js"
import { Settings } from "../../services/Settings.js"
import { decodingStatement } from "./decodeRows.js"
import { classify, classifyQuery, timedOut } from "./driverErrors.js"
import { ensureSchema } from "./graphIndexes.js"
import { confirmReplicas, replicationConfig } from "./replication.js"
import { moduleVersion, serverVersion } from "./serverInfo.js"
import { readServerTimeout, type ServerTimeout } from "./serverTimeout.js"
import { logIfSlow } from "./slowStatements.js"

const connectTimeout = Duration.millis(1500)

interface Connection {
  readonly db: FalkorDB
  readonly isOpen: () => boolean
  readonly timeout: ServerTimeout
}

export const FalkorDbLive = Layer.scoped(
  GraphDatabase,
  Effect.gen(function*() {
    const { graph: graphName } = yield* Settings
    const endpoint = yield* DatabaseEndpoint
    const replication = yield* replicationConfig
    const current = yield* SynchronizedRef.make(Option.none<Connection>())
    let schemaReady = false

    const closeQuietly = (c: Connection) => Effect.promise(() => c.db.close().catch(() => undefined))

    // Set when the layer's scope closes. A call still running then (its connection just dropped by
    // the finalizer, so retried) must fail, not open a connection, or start a server, nobody closes.
    const shutDown = yield* Ref.make(false)
    const refuseAfterShutdown = Effect.flatMap(
      Ref.get(shutDown),
      (down) =>
        down
          ? Effect.fail(new DatabaseError({ reason: "shut_down", detail: "connection layer already shut down" }))
          : Effect.void
    )

    const open = Effect.gen(function*() {
      yield* refuseAfterShutdown
      const options: FalkorDBOptions = yield* endpoint.options
      // No silent reconnect loop and no offline queue: a dead server must fail calls fast.
      const connecting = yield* Effect.try({
        try: () =>
          FalkorDB.connect({
            ...options,
            socket: { ...options.socket, connectTimeout: Duration.toMillis(connectTimeout), reconnectStrategy: false },
            disableOfflineQueue: true
          } as unknown as FalkorDBOptions).then((made) => {
            // At once, in the same tick: an 'error' event with no listener would end the process. The
            // failure itself surfaces on the next query, which makes the connection again.
            made.on("error", () => {})
            return made
          }),
        catch: classify
      })
      const db = yield* Effect.tryPromise({ try: () => connecting, catch: classify }).pipe(
        Effect.timeoutFail({ duration: connectTimeout, onTimeout: timedOut("connect") }),
        // A connect given up on (timed out, or the call's budget ran out) can still finish later, for
        // instance when a paused server resumes: close it then rather than leak it.
        Effect.onExit((exit) =>
          Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => {
            connecting.then((late) => late.close()).catch(() => undefined)
          })
        )
      )
      const client = yield* Effect.tryPromise({ try: () => db.connection, catch: classify }).pipe(
        Effect.tapError(() => Effect.promise(() => db.close().catch(() => undefined)))
      )
      const timeout = yield* readServerTimeout(db).pipe(
        Effect.timeoutFail({ duration: connectTimeout, onTimeout: timedOut("timeout setting") }),
        Effect.tapError(() => Effect.promise(() => db.close().catch(() => undefined)))
      )
      if (!timeout.boundsWrites) {
        // Info, not a warning: the operator of an external server chose it, and every start would repeat it.
        yield* Effect.logInfo(
          "FalkorDB applies no timeout to writes (its TIMEOUT_DEFAULT and TIMEOUT_MAX are 0): a long write holds the graph until it ends"
        )
      }
      const connection: Connection = { db, isOpen: () => client.isReady, timeout }
      if (!schemaReady) {
        yield* ensureSchema(db.selectGraph(graphName)).pipe(
          Effect.timeoutFail({ duration: queryTimeout, onTimeout: timedOut("schema setup") }),
          Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : closeQuietly(connection))
        )
        schemaReady = true
      }
      // Shut down while this connect was under way: the finalizer could not see it, so close it here.
      yield* Effect.tapError(refuseAfterShutdown, () => closeQuietly(connection))
      return connection
    })

    /** The shared connection: made once even when many calls wait for it, re-made once it drops. */
    const connection = SynchronizedRef.modifyEffect(
      current,
      (existing) =>
        Option.isSome(existing) && existing.value.isOpen()
          ? Effect.succeed([existing.value, existing] as const)
          : Effect.gen(function*() {
            if (Option.isSome(existing)) yield* closeQuietly(existing.value)
            const made = yield* open
            return [made, Option.some(made)] as const
          })
    )

    const fastConnection = SynchronizedRef.get(current).pipe(
      Effect.flatMap((c) => Option.isSome(c) && c.value.isOpen() ? Effect.succeed(c.value) : connection)
    )

    /**
     * A query that timed out leaves its connection suspect (a paused server, a half-open socket that
     * would never report an error): forget it, so the next call connects afresh. Only the connection
     * the query ran on is dropped, never a newer one made meanwhile.
     */
    const forget = (stale: Connection) =>
      SynchronizedRef.updateEffect(current, (c) =>
        Option.isSome(c) && c.value === stale
          ? Effect.as(closeQuietly(stale), Option.none<Connection>())
          : Effect.succeed(c))

    /**
     * Inside a tool call the call's budget is the timer (see `ownQueryTimeout`): a query it cuts
     * short is interrupted, and its connection is dropped just as after a timeout of its own.
     */
    const withConnection = <A>(use: (db: FalkorDB, timeout: ServerTimeout) => Promise<A>) =>
      Effect.all([fastConnection, FiberRef.get(ownQueryTimeout)]).pipe(
        Effect.flatMap(([connection, timed]) => {
          const query = Effect.tryPromise({
            try: () => use(connection.db, connection.timeout),
            catch: (cause) => cause
          }).pipe(
            Effect.catchAll(classifyQuery),
            Effect.tapError((e) => e.reason === "over_timeout_cap" ? forget(connection) : Effect.void)
          )
          return timed
            ? query.pipe(
              Effect.timeoutFail({ duration: queryTimeout, onTimeout: timedOut("query") }),
              Effect.tapError((e) => e.reason === "timeout" ? forget(connection) : Effect.void)
            )
            // In the background: the budget must not wait for the connection lock, which a connect
            // in progress may hold (the answer would then come after the contract's 3 s).
            : Effect.onInterrupt(query, () => Effect.asVoid(Effect.forkDaemon(forget(connection))))
        }),
        Effect.tapError((e) =>
          Effect.logWarning("FalkorDB query failed").pipe(Effect.annotateLogs({ detail: e.detail }))
        )
      )

    const run = (mode: "query" | "roQuery") => (cypher: string, params: CypherParams | undefined) =>
      withConnection((db, timeout) => {
        const graph = db.selectGraph(graphName)
        const options = {
          ...(params === undefined ? {} : { params: params as Record<string, never> }),
          TIMEOUT: timeout.millis
        }
        if (mode === "roQuery") return graph.roQuery<unknown>(cypher, options)
        const { minReplicas, timeoutMillis } = replication
        return minReplicas === 0 ? graph.query<unknown>(cypher, options) : graph.query<unknown>(cypher, options).then(
          async (reply) => {
            await confirmReplicas(db, minReplicas, timeoutMillis)
            return reply
          }
        )
      }).pipe(
        Effect.tap((reply) => logIfSlow(cypher, reply.metadata)),
        Effect.map((reply): ReadonlyArray<unknown> => reply.data ?? [])
      )

    yield* Effect.addFinalizer(() =>
      Ref.set(shutDown, true).pipe(
        Effect.zipRight(SynchronizedRef.get(current)),
        Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: closeQuietly }))
      )
    )

    return GraphDatabase.of({
      graphName,
      write: decodingStatement(run("query")),
      read: decodingStatement(run("roQuery")),
      versions: withConnection(async (db) => {
        const client = await db.connection
        return [await client.sendCommand(["MODULE", "LIST"]), await client.sendCommand(["INFO", "server"])] as const
      }).pipe(Effect.map(([modules, info]) => ({ module: moduleVersion(modules), server: serverVersion(info) }))),
      dropGraph: withConnection((db) => db.selectGraph(graphName).delete()).pipe(
        Effect.asVoid,
        Effect.catchIf((e) => e.reason === "no_graph", () => Effect.void)
      )
    })
  })
)
