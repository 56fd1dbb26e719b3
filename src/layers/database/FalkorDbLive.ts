import {
  Clock,
  Config,
  Duration,
  Effect,
  Either,
  Exit,
  Fiber,
  FiberRef,
  HashMap,
  HashSet,
  Layer,
  Option,
  Pool,
  Ref,
  Schema,
  Scope,
  SynchronizedRef
} from "effect"
import type { FalkorDBOptions } from "falkordb"
import { DatabaseError } from "../../domain/errors.js"
import { DatabaseEndpoint } from "../../services/DatabaseEndpoint.js"
import {
  type CypherParams,
  Database,
  type GraphDatabaseShape,
  ownQueryTimeout,
  queryTimeout,
  statementTimeout
} from "../../services/GraphDatabase.js"
import { decodingStatement } from "./decodeRows.js"
import { classifyCommand, classifyQuery, driverCall, timedOut } from "./driverErrors.js"
import { effectsWarning, replicatesEffects } from "./effectsReplication.js"
import { clusterClient, type GraphClient, singleClient } from "./graphClient.js"
import { ensureSchema } from "./graphIndexes.js"
import { replicationConfig } from "./replication.js"
import { type GraphAccess, migrate, newerSchema } from "./schemaVersion.js"
import { moduleVersion, serverVersion } from "./serverInfo.js"
import { readServerTimeout, type ServerTimeout } from "./serverTimeout.js"
import { logIfSlow } from "./slowStatements.js"

const connectTimeout = Duration.millis(1500)

/**
 * RELAY_DB_CONNECTIONS: how many connections the process may hold at once. A statement holds its
 * connection until it ends (the server answers a connection's commands one after another), so this
 * bounds how many statements run at once; the rest wait for a connection to come free.
 */
const poolConfig = Config.integer("RELAY_DB_CONNECTIONS").pipe(
  Config.withDefault(8),
  Config.validate({
    message: "RELAY_DB_CONNECTIONS must be a whole number from 1 to 64",
    validation: (n) => n >= 1 && n <= 64
  })
)

interface Connection {
  readonly db: GraphClient
  readonly isOpen: () => boolean
  readonly timeout: ServerTimeout
}

interface Checkout {
  readonly connection: Connection
  /** Closes the connection once it is given back, instead of lending it again. */
  readonly drop: Effect.Effect<void, never, Scope.Scope>
}

/** A pooled connection found closed (the server restarted, a socket dropped): the next one is tried. */
class StaleConnection extends Schema.TaggedError<StaleConnection>()("StaleConnection", {}) {}

const closeQuietly = (c: Connection) => Effect.promise(() => c.db.close().catch(() => undefined))

/**
 * What a shared fiber ended with, without its FiberRefs: Fiber.join hands the joiner the fiber's
 * FiberRefs, the context of the call that forked it included, so every statement after the
 * graph's first took that first call's context (a save after a prefix lookup got that call's
 * ToolCall id, the id of the fact it built on).
 */
const outcomeOf = <A, E>(fiber: Fiber.Fiber<A, E>): Effect.Effect<A, E> => Effect.flatten(Fiber.await(fiber))

export const FalkorDbLive = Layer.scoped(
  Database,
  Effect.gen(function*() {
    const endpoint = yield* DatabaseEndpoint
    const replication = yield* replicationConfig
    const size = yield* poolConfig
    // On a cluster RELAY_DB_CONNECTIONS counts per shard: a pooled cluster client holds one socket a
    // shard, and a shard whose primary is gone holds its statements until they fail; were the pool
    // one shard's size, they would take the connections the other shards' workspaces need.
    const shards = endpoint.clusterNodes === undefined ? 1 : yield* endpoint.options.pipe(
      Effect.flatMap((options) =>
        driverCall(() =>
          clusterClient(endpoint.clusterNodes!, {
            ...options,
            socket: { ...options.socket, connectTimeout: Duration.toMillis(connectTimeout), reconnectStrategy: false }
          } as unknown as FalkorDBOptions)
        )
      ),
      Effect.flatMap((c) => Effect.as(Effect.promise(() => c.close()), Math.max(1, c.primaries()))),
      Effect.timeout(Duration.times(connectTimeout, 2)),
      Effect.orElseSucceed(() => 1)
    )
    const scope = yield* Effect.scope

    // Set when the layer's scope closes. A call still running then (its connection just closed by
    // the pool, so retried) must fail, not open a connection, or start a server, nobody closes.
    const shutDown = yield* Ref.make(false)
    const refuseAfterShutdown = Effect.flatMap(
      Ref.get(shutDown),
      (down) =>
        down
          ? Effect.fail(new DatabaseError({ reason: "shut_down", detail: "connection layer already shut down" }))
          : Effect.void
    )
    const live = yield* Ref.make(HashSet.empty<Connection>())
    // Said once a process: each connection of the pool reads the setting.
    const toldNoWriteTimeout = yield* Ref.make(false)
    const checkedEffects = yield* Ref.make(false)

    const open = Effect.gen(function*() {
      yield* refuseAfterShutdown
      const options: FalkorDBOptions = yield* endpoint.options
      const cluster = endpoint.clusterNodes ?? null
      // No silent reconnect loop and no offline queue: a dead server must fail calls fast.
      const connectOptions = {
        ...options,
        socket: { ...options.socket, connectTimeout: Duration.toMillis(connectTimeout), reconnectStrategy: false },
        disableOfflineQueue: true
      } as unknown as FalkorDBOptions
      const connecting = yield* Effect.try({
        try: () => cluster === null ? singleClient(connectOptions) : clusterClient(cluster, connectOptions),
        catch: (cause) => cause
      }).pipe(Effect.catchAll(classifyCommand))
      const db = yield* driverCall(() => connecting).pipe(
        Effect.timeoutFail({ duration: connectTimeout, onTimeout: timedOut("connect") }),
        // A connect given up on can still finish later, for instance when a paused server resumes:
        // close it then rather than leak it.
        Effect.onExit((exit) =>
          Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => {
            connecting.then((late) => late.close()).catch(() => undefined)
          })
        )
      )
      const timeout = yield* readServerTimeout(db).pipe(
        Effect.timeoutFail({ duration: connectTimeout, onTimeout: timedOut("timeout setting") }),
        Effect.tapError(() => Effect.promise(() => db.close().catch(() => undefined)))
      )
      if (!timeout.boundsWrites && !(yield* Ref.getAndSet(toldNoWriteTimeout, true))) {
        // Info, not a warning: the operator of an external server chose it, and every start would repeat it.
        yield* Effect.logInfo(
          "FalkorDB applies no timeout to writes (its TIMEOUT_DEFAULT and TIMEOUT_MAX are 0): a long write holds the graph until it ends"
        )
      }
      // A server that refuses GRAPH.CONFIG (an ACL, a managed service) or does not answer in time is
      // not known to send effects: nothing to say.
      if (
        !(yield* Ref.getAndSet(checkedEffects, true)) &&
        (yield* replicatesEffects(db).pipe(Effect.timeout(connectTimeout), Effect.orElseSucceed(() => false)))
      ) {
        yield* Effect.logWarning(effectsWarning)
      }
      const connection: Connection = { db, isOpen: db.isOpen, timeout }
      yield* Ref.update(live, HashSet.add(connection))
      return connection
    })
    const close = (c: Connection) => Effect.zipRight(Ref.update(live, HashSet.remove(c)), closeQuietly(c))

    /**
     * Connections made on demand up to `size`, one statement on each at a time, and closed once a
     * minute has passed with fewer statements than connections. A connect that failed is an item
     * too (Effect's Pool leaves the callers waiting for a failed acquire waiting): the caller it is
     * handed to fails with it and drops it, which makes the pool try again for the next.
     * On the live Clock whatever Clock the stack has: a socket idles in real time, and the TTL's
     * one-minute loop on a TestClock set forward a year would run once per simulated minute.
     */
    const pool = yield* Effect.withClock(
      Pool.makeWithTTL({
        // Not acquireRelease: its acquire cannot be interrupted, so a connect to a hung server would
        // outlive its own timeout.
        acquire: Effect.either(Effect.tap(open, (c) => Effect.addFinalizer(() => close(c)))),
        min: 0,
        max: size * shards,
        timeToLive: "1 minute",
        timeToLiveStrategy: "usage"
      }),
      Clock.make()
    )
    // Before the pool shuts down (finalizers run last added first): the pool waits for every
    // connection lent out, so the statements still running on them are ended by closing them.
    yield* Effect.addFinalizer(() =>
      Ref.set(shutDown, true).pipe(
        Effect.zipRight(Ref.get(live)),
        Effect.flatMap((open) => Effect.forEach(open, closeQuietly, { discard: true }))
      )
    )

    /**
     * A connection for the current scope. The pool hands one out in a fiber of its own, because its
     * wait for a connection being made cannot be interrupted: the caller's budget can still cut the
     * wait short, and a connection handed out after that goes straight back. A failed connect is
     * dropped at once by whoever it is handed to, which makes the pool try again for the next.
     */
    const checkout: Effect.Effect<Checkout, DatabaseError | StaleConnection, Scope.Scope> = Effect.acquireRelease(
      Scope.make(),
      (held, exit) => Scope.close(held, exit)
    ).pipe(
      Effect.flatMap((held) =>
        Effect.forkDaemon(Scope.extend(
          Effect.tap(Pool.get(pool), (item) => Either.isLeft(item) ? Pool.invalidate(pool, item) : Effect.void),
          held
        ))
      ),
      Effect.flatMap(outcomeOf),
      Effect.flatMap((item): Effect.Effect<Checkout, DatabaseError | StaleConnection, Scope.Scope> =>
        Either.match(item, {
          onLeft: Effect.fail,
          onRight: (connection) =>
            connection.isOpen()
              ? Effect.succeed({ connection, drop: Pool.invalidate(pool, item) })
              : Effect.zipRight(Pool.invalidate(pool, item), new StaleConnection())
        })
      )
    )

    /**
     * `use` on a connection of the pool, held until it ends; bounded by `statementTimeout` (queryTimeout unless a whole-graph tool set it) when `timed`.
     * A statement cut short (its own timeout, or the call's budget interrupting it) leaves its
     * connection suspect (a paused server, a half-open socket that would never report an error):
     * the pool closes it rather than lend it again.
     */
    const onConnection = <A>(
      timed: boolean,
      what: string,
      use: (connection: Connection) => Effect.Effect<A, DatabaseError>
    ): Effect.Effect<A, DatabaseError> => {
      const run = Effect.scoped(Effect.flatMap(checkout, ({ connection, drop }) =>
        use(connection).pipe(
          Effect.tapError((e) =>
            // Not for a shard it could not reach: a cluster connection reads the slots again itself
            // and goes on serving the other shards (graphClient.ts).
            e.reason === "over_timeout_cap" ? drop : Effect.void
          ),
          Effect.onInterrupt(() => drop)
        ))).pipe(
          Effect.retry({ while: (e) => e._tag === "StaleConnection", times: size * shards }),
          Effect.catchTag(
            "StaleConnection",
            () =>
              Effect.fail(new DatabaseError({ reason: "unreachable", detail: "every pooled connection was closed" }))
          )
        )
      // The timer covers getting a connection too: to a paused server a new one hangs in its connect.
      return timed ?
        Effect.flatMap(
          FiberRef.get(statementTimeout),
          (duration) => Effect.timeoutFail(run, { duration, onTimeout: timedOut(what) })
        ) :
        run
    }

    /** A driver call on a pooled connection; inside a tool call the call's budget is its timer (`ownQueryTimeout`). */
    const withConnection = <A>(use: (db: GraphClient, timeout: ServerTimeout) => Promise<A>) =>
      Effect.all([refuseAfterShutdown, FiberRef.get(ownQueryTimeout)]).pipe(
        Effect.flatMap(([, timed]) =>
          onConnection(
            timed,
            "query",
            (connection) => driverCall(() => use(connection.db, connection.timeout), classifyQuery)
          )
        ),
        // "exists" is an answer, not a fault: a schema statement for what is already there (every start
        // on an existing database), which its caller expects and takes as done.
        Effect.tapError((e) =>
          e.reason === "exists"
            ? Effect.void
            : Effect.logWarning("FalkorDB query failed").pipe(Effect.annotateLogs({ detail: e.detail }))
        )
      )

    /**
     * The indexes and constraint of each graph, made once per graph by the first statement on it; a
     * check that failed is made again by the next statement. It runs in a fiber of its own, bounded
     * on its own, so a call that gives up waiting for it does not stop it for the others.
     */
    const checks = yield* SynchronizedRef.make(HashMap.empty<string, Fiber.Fiber<GraphAccess, DatabaseError>>())
    /**
     * A statement on a graph with no schema check before it: what every statement runs once its
     * graph is ready, and what the check's migration runs (under its own timer: the check is shared
     * by every caller, so no one caller's budget bounds it).
     */
    const unchecked =
      (graphName: string, mode: "query" | "roQuery") => (cypher: string, params: CypherParams | undefined) =>
        withConnection((db, timeout) => {
          const graph = db.selectGraph(graphName)
          const options = {
            ...(params === undefined ? {} : { params: params as Record<string, never> }),
            TIMEOUT: timeout.millis
          }
          if (mode === "roQuery") return graph.roQuery<unknown>(cypher, options)
          const { minReplicas, timeoutMillis } = replication
          return minReplicas === 0 ?
            graph.query<unknown>(cypher, options) :
            graph.query<unknown>(cypher, options).then(
              async (reply) => {
                // WAIT counts the replicas that have this connection's last write: on the same connection.
                await db.confirmWrite(graphName, minReplicas, timeoutMillis)
                return reply
              }
            )
        }).pipe(
          Effect.tap((reply) => logIfSlow(cypher, reply.metadata)),
          Effect.map((reply): ReadonlyArray<unknown> => reply.data ?? [])
        )
    const migration = (graph: string) => ({
      read: decodingStatement(unchecked(graph, "roQuery")),
      write: decodingStatement(unchecked(graph, "query"))
    })
    const schemaCheck = (graph: string) =>
      onConnection(true, "schema setup", (connection) => ensureSchema(connection.db.selectGraph(graph))).pipe(
        Effect.zipRight(
          migrate(migration(graph)).pipe(
            Effect.locally(ownQueryTimeout, true),
            // A replica refuses writes: it is read as it is (its primary's Relay migrates what it copies).
            Effect.catchIf((e) => e.reason === "refused" && /\bREADONLY\b/.test(e.detail), (e) =>
              Effect.as(
                Effect.logWarning("the memory could not be migrated: the database is a read-only replica").pipe(
                  Effect.annotateLogs({ detail: e.detail })
                ),
                null
              ))
          )
        ),
        Effect.onExit((exit) =>
          Exit.isSuccess(exit) ? Effect.void : SynchronizedRef.update(checks, HashMap.remove(graph))
        )
      )
    const schemaReady = (graph: string): Effect.Effect<GraphAccess, DatabaseError> =>
      Effect.flatMap(SynchronizedRef.get(checks), (running) =>
        Option.match(HashMap.get(running, graph), {
          onSome: outcomeOf,
          onNone: () =>
            SynchronizedRef.modifyEffect(checks, (now) =>
              Option.match(HashMap.get(now, graph), {
                onSome: (fiber) => Effect.succeed([fiber, now] as const),
                onNone: () =>
                  Effect.map(
                    // Shared by every caller: on the usual statement timer, whatever the first caller's.
                    Effect.forkIn(Effect.locally(schemaCheck(graph), statementTimeout, queryTimeout), scope),
                    (fiber) => [fiber, HashMap.set(now, graph, fiber)] as const
                  )
              })).pipe(Effect.flatMap(outcomeOf))
        }))

    const graph = (graphName: string): GraphDatabaseShape => {
      const run = (mode: "query" | "roQuery") => (cypher: string, params: CypherParams | undefined) =>
        Effect.zipRight(
          Effect.flatMap(
            schemaReady(graphName),
            (newer) => newer === null || mode === "roQuery" ? Effect.void : Effect.fail(newerSchema(newer))
          ),
          unchecked(graphName, mode)(cypher, params)
        )

      return {
        graphName,
        write: decodingStatement(run("query")),
        read: decodingStatement(run("roQuery")),
        versions: withConnection(async (db) =>
          [await db.command(["MODULE", "LIST"]), await db.command(["INFO", "server"])] as const
        ).pipe(Effect.map(([modules, info]) => ({ module: moduleVersion(modules), server: serverVersion(info) }))),
        copyTo: (target) => Effect.asVoid(withConnection((db) => db.selectGraph(graphName).copy(target))),
        dropGraph: withConnection((db) => db.selectGraph(graphName).delete()).pipe(
          Effect.asVoid,
          Effect.catchIf((e) => e.reason === "no_graph", () => Effect.void),
          // A graph made again later needs its indexes again.
          Effect.ensuring(SynchronizedRef.update(checks, HashMap.remove(graphName)))
        )
      }
    }

    return { graph }
  })
)
