import { Effect, Schema } from "effect"
import { DatabaseError } from "../../domain/errors.js"
import { markDependentsOfRows, neverStale } from "../factStore/staleness.js"

/**
 * What a graph's data means is versioned: `schema` on its RelayClock node. 1 (or none): staleness
 * derived at read time; 2: every fact stores `stale_at` (layers/factStore/staleness.ts). A graph
 * that starts here gets the version with its clock node; an older one is migrated the first time a
 * process uses it; a newer one (a later Relay wrote it) is read but never written, so two versions
 * sharing a database cannot corrupt it.
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

/** How many node ids one migration statement covers: each statement's own work stays bounded. */
export const migrationBatch = 10_000

const VersionRow = Schema.Struct({ schema: Schema.NullOr(Schema.Number), top: Schema.NullOr(Schema.Number) })

const versionQuery = `OPTIONAL MATCH (clk:RelayClock {id: 0}) WITH clk.schema AS schema ` +
  `OPTIONAL MATCH (f:Fact) RETURN schema, max(id(f)) AS top`

/** Every fact of the id range gets a stamp (never stale) unless a write already gave it one. */
const fillQuery =
  `MATCH (f:Fact) WHERE id(f) >= $lo AND id(f) < $hi AND f.stale_at IS NULL SET f.stale_at = ${neverStale}`

/** Each decided or retracted fact of the range marks its dependents from its first stamp (the rule a decision keeps). */
const markQuery = `MATCH (x:Fact) WHERE id(x) >= $lo AND id(x) < $hi AND indegree(x, 'SUPERSEDES', 'RETRACTS') > 0 ` +
  `WITH x, reduce(m = ${neverStale}, t IN [(x)<-[x_t:SUPERSEDES|RETRACTS]-() | x_t.created_at] | ` +
  `CASE WHEN t < m THEN t ELSE m END) AS at ${markDependentsOfRows}`

const doneQuery = `${clockMerge}SET clk.schema = $schema`

/**
 * Brings an older graph to `schemaVersion` in statements of `migrationBatch` node ids: every fact
 * gets its `stale_at`, then every decision and retraction marks its dependents, as its write does now.
 * Both steps only lower a stamp to what the edges say, so the migration is idempotent, can stop
 * anywhere and run again, and agrees with writes made meanwhile by this version (a save reads the
 * stamp its parent holds then; a decision or retraction made before a fact's fill is marked again
 * when the second step reaches its fact).
 */
export const migrate = Effect.fn("relay/graph/migrate")(function*(statement: Statement) {
  const rows = yield* statement(versionQuery, {}, true)
  const { schema, top } = Schema.decodeUnknownSync(VersionRow)(rows[0] ?? { schema: null, top: null })
  if (schema !== null && schema > schemaVersion) return schema satisfies GraphAccess
  if (schema === schemaVersion || top === null) return null satisfies GraphAccess
  yield* Effect.logInfo("migrating the memory to its stored form").pipe(
    Effect.annotateLogs({ from: schema ?? 1, to: schemaVersion, facts_up_to_node: top })
  )
  for (const query of [fillQuery, markQuery]) {
    for (let lo = 0; lo <= top; lo += migrationBatch) {
      yield* statement(query, { lo, hi: lo + migrationBatch }, false)
    }
  }
  yield* statement(doneQuery, { schema: schemaVersion }, false)
  return null satisfies GraphAccess
})
