import { Effect, Schema } from "effect"
import { DatabaseError } from "../../domain/errors.js"
import { neverStale } from "../factStore/staleness.js"

/**
 * What a graph's data means is versioned: `schema` on its RelayClock node. 1 (or none): staleness
 * derived at read time; 2: every fact stores `stale_at` (layers/factStore/staleness.ts). A graph
 * that starts here gets the version with its clock node; an older one is migrated the first time a
 * process of this version uses it (every statement of that process waits for it); a newer one (a
 * later Relay wrote it) is read but never written by this process.
 */
export const schemaVersion = 2

/** The clock node every stamping write merges; a new graph is born at this version. */
export const clockMerge = `MERGE (clk:RelayClock {id: 0}) ON CREATE SET clk.schema = ${schemaVersion} `

/** What the schema check leaves a graph as: written to (null), or only read: the newer version it found. */
export type GraphAccess = number | null

export const newerSchema = (found: number) =>
  new DatabaseError({
    reason: "newer_schema",
    detail: `the graph is at schema ${found}; this Relay knows ${schemaVersion}`
  })

/** A statement on the graph (the schema check's own connection handling). */
export type Statement = (
  cypher: string,
  params: Record<string, unknown>,
  readOnly: boolean
) => Effect.Effect<ReadonlyArray<unknown>, DatabaseError>

/** Facts one migration statement reads or writes: each statement's own work stays bounded. */
export const migrationBatch = 10_000

const VersionRow = Schema.Struct({ schema: Schema.Unknown })
const versionQuery = `OPTIONAL MATCH (clk:RelayClock {id: 0}) RETURN clk.schema AS schema`

const TopRow = Schema.Struct({ top: Schema.NullOr(Schema.Number) })
const topQuery = `MATCH (f:Fact) RETURN max(id(f)) AS top`

/**
 * A range of node ids: each fact with its parent, its stamp, what it stores, and the first
 * decision or retraction on it (the inputs of domain/model/stored.ts's rule). A node written by
 * hand without a stamp sorts first.
 */
const readQuery = `MATCH (f:Fact) WHERE id(f) >= $lo AND id(f) < $hi ` +
  `RETURN id(f) AS node, coalesce(f.created_at, 0) AS at, f.stale_at AS stored, ` +
  `head([(f)-[:BUILDS_ON]->(f_up) | id(f_up)]) AS parent, ` +
  `reduce(m = ${neverStale}, t IN [(f)<-[f_t:SUPERSEDES|RETRACTS]-() | coalesce(f_t.created_at, 0)] | ` +
  `CASE WHEN t < m THEN t ELSE m END) AS invalidated`

const FactRow = Schema.Struct({
  node: Schema.Number,
  at: Schema.Number,
  stored: Schema.NullOr(Schema.Number),
  parent: Schema.NullOr(Schema.Number),
  invalidated: Schema.Number
})
type FactRow = typeof FactRow.Type

/** Writes the stamps computed, each only down (a write of this version since the read may have lowered it already). */
const writeQuery = `UNWIND $rows AS r MATCH (f:Fact) WHERE id(f) = r[0] ` +
  `WITH f, r[1] AS s WHERE f.stale_at IS NULL OR f.stale_at > s SET f.stale_at = s`

/** Only up: a newer Relay that migrated the graph meanwhile keeps its version. */
const doneQuery = `${clockMerge}WITH clk WHERE coalesce(clk.schema, 0) < $schema SET clk.schema = $schema`

const decodeAll = <A, I>(schema: Schema.Schema<A, I>) => (rows: ReadonlyArray<unknown>) =>
  Schema.decodeUnknown(Schema.Array(schema))(rows).pipe(
    Effect.mapError((e) => new DatabaseError({ reason: "refused", detail: `migration read: ${e.message}` }))
  )

/**
 * Each fact's stamp by the model's rule: its parent's stamp or the parent's first decision or
 * retraction, whichever is earlier; parents first (a parent is always stamped before its child).
 */
export const stampsOf = (facts: ReadonlyArray<FactRow>): Map<number, number> => {
  const byNode = new Map(facts.map((f) => [f.node, f]))
  const stamp = new Map<number, number>()
  for (const f of [...facts].sort((a, b) => a.at - b.at)) {
    const p = f.parent === null ? undefined : byNode.get(f.parent)
    stamp.set(f.node, p === undefined ? neverStale : Math.min(stamp.get(p.node) ?? neverStale, p.invalidated))
  }
  return stamp
}

/**
 * Brings an older graph to `schemaVersion`: reads every fact's inputs in statements of
 * `migrationBatch` node ids, computes every stamp here, and writes those that differ in statements
 * of `migrationBatch` facts. No statement's work grows with a subtree or the graph. It only lowers
 * stamps (or fills missing ones), so it is idempotent, can stop anywhere and run again, and two
 * processes migrating at once agree. Memory: some 100 bytes a fact while it runs.
 */
export const migrate = Effect.fn("relay/graph/migrate")(function*(statement: Statement) {
  const found = (yield* Effect.flatMap(statement(versionQuery, {}, true), decodeAll(VersionRow)))[0]?.schema ?? null
  if (found === schemaVersion) return null satisfies GraphAccess
  // A version this Relay cannot read as a number is no version it knows: read, never written.
  if (found !== null && (typeof found !== "number" || found > schemaVersion)) {
    return (typeof found === "number" ? found : Number.NaN) satisfies GraphAccess
  }
  const top = (yield* Effect.flatMap(statement(topQuery, {}, true), decodeAll(TopRow)))[0]?.top ?? null
  if (top !== null) {
    yield* Effect.logInfo("migrating the memory to its stored form").pipe(
      Effect.annotateLogs({ from: found ?? 1, to: schemaVersion })
    )
    const facts: Array<FactRow> = []
    for (let lo = 0; lo <= top; lo += migrationBatch) {
      facts.push(
        ...(yield* Effect.flatMap(
          statement(readQuery, { lo, hi: lo + migrationBatch }, true),
          decodeAll(FactRow)
        ))
      )
    }
    const stamps = stampsOf(facts)
    const changed = facts.flatMap((f) => {
      const s = stamps.get(f.node)!
      return f.stored === null || f.stored > s ? [[f.node, s]] : []
    })
    for (let i = 0; i < changed.length; i += migrationBatch) {
      yield* statement(writeQuery, { rows: changed.slice(i, i + migrationBatch) }, false)
    }
  }
  yield* statement(doneQuery, { schema: schemaVersion }, false)
  return null satisfies GraphAccess
})
