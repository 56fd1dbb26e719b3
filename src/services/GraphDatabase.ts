import { Context, Duration, type Effect, FiberRef, type Option, type Schema } from "effect"
import type { DatabaseError } from "../domain/errors.js"

export type CypherValue = string | number | boolean | null | ReadonlyArray<CypherValue> | {
  readonly [k: string]: CypherValue
}
export type CypherParams = Readonly<Record<string, CypherValue>>

/**
 * One statement. With a row Schema, every row the database returns is decoded by it (the
 * `SqlSchema.findAll` idea): a row it refuses is a defect, `CorruptRow` (layers/database/decodeRows.ts), so a
 * damaged node answers `internal`, and no caller holds a row nobody checked. Without one, nothing is
 * returned: the statement is run for what it does.
 */
export interface Statement {
  <A, I>(cypher: string, params: CypherParams, row: Schema.Schema<A, I>): Effect.Effect<ReadonlyArray<A>, DatabaseError>
  (cypher: string, params?: CypherParams): Effect.Effect<void, DatabaseError>
}

export interface GraphDatabaseShape {
  readonly graphName: string
  /** A statement that may write. */
  readonly write: Statement
  /** A read-only statement (GRAPH.RO_QUERY): the server refuses it if it tries to write. */
  readonly read: Statement
  /** The server's FalkorDB module version (e.g. "4.16.3") and server (e.g. "valkey 8.0.1"), for diagnostics. */
  readonly versions: Effect.Effect<
    { readonly module: Option.Option<string>; readonly server: Option.Option<string> },
    DatabaseError
  >
  /** Drops the whole graph: for tests and benchmarks that made the graph themselves. */
  readonly dropGraph: Effect.Effect<void, DatabaseError>
  /**
   * Copies the whole graph (indexes included) to a new graph of the same server with GRAPH.COPY: a
   * consistent snapshot while others keep writing. Fails when the target exists (`npm run copy`).
   */
  readonly copyTo: (target: string) => Effect.Effect<void, DatabaseError>
}

/**
 * One graph, the one a store reads and writes. Every query is parameterised; callers never splice
 * values into Cypher text.
 */
export class GraphDatabase extends Context.Tag("relay/GraphDatabase")<GraphDatabase, GraphDatabaseShape>() {}

/**
 * The database server: any of its graphs, over one bounded pool of connections that every graph
 * of the process shares (the stdio graph, each team workspace, the admin graph). A statement holds
 * its connection until it ends, as the server does; the schema a store relies on is checked once
 * per graph. Implemented by layers/database (FalkorDbLive).
 */
export class Database extends Context.Tag("relay/Database")<Database, {
  readonly graph: (name: string) => GraphDatabaseShape
}>() {}

/**
 * Whether each query bounds itself with the connection's own timeout (the default, for the CLI and
 * anything else that queries directly). A tool call runs inside one time budget
 * (src/policies/timeout.ts) that already bounds every query it makes, so it turns this off: one
 * timer per call instead of one per query on top of it (each is a race of two fibers).
 */
export const ownQueryTimeout: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(true)

/**
 * How long one query may run, on both sides: the connection's own timer (outside a tool call) and
 * the TIMEOUT sent with every query, so the server stops the query too instead of running on after
 * the caller gave up. 2 s leaves half a second of the 2.5 s call budget for the reply.
 */
export const queryTimeout = Duration.seconds(2)

/** The connection's own timer on one query when `ownQueryTimeout` holds: a whole-graph tool's are shorter (policies/timeout.ts). */
export const statementTimeout: FiberRef.FiberRef<Duration.Duration> = FiberRef.unsafeMake(queryTimeout)
