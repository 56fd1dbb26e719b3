import { Effect, Schema } from "effect"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { type ForkDrift, forkDrift } from "./forkWindow.js"
import { inheritedStale, neverStale } from "./staleness.js"

/**
 * `check-db --verify`: every fact's stored `stale_at`, `merge_of` and `merge_depth` against what its
 * edges say now (domain/model/stored.ts). The stamp obeys one local rule, a root's is never and a child's is its
 * parent's inherited one, and every write keeps it inside its own statement; so checking the rule
 * fact by fact (a confirmed fact's only as a floor: a confirmation drops stamps the parent's hides), with the parent read in the same statement, checks every stamp against the whole
 * chain above it, in bounded batches of node ids, while others write. Each fork's window likewise
 * (forkWindow.ts): whether it says open against the parent's pairs now.
 */
export const verifyBatch = 10_000

const driftQuery = `MATCH (f:Fact) WHERE id(f) >= $lo AND id(f) < $hi ` +
  `OPTIONAL MATCH (f)-[:BUILDS_ON]->(p) ` +
  // Extra parents as rows, not a comprehension (inheritedStale holds one; domain/model/save.ts mergeDepth).
  `OPTIONAL MATCH (f)-[:ALSO_ON]->(q) ` +
  `WITH f, p, count(q) AS extra, min(CASE WHEN q IS NULL THEN NULL ELSE ${inheritedStale("q")} END) AS qStale, ` +
  `max(coalesce(q.merge_depth, 0)) AS qDepth ` +
  `WITH f, extra, CASE WHEN p IS NULL THEN ${neverStale} ELSE ${inheritedStale("p")} END AS first, qStale, ` +
  `CASE WHEN extra = 0 THEN p.merge_of ELSE f.id END AS mergeOf, ` +
  `CASE WHEN extra = 0 THEN coalesce(p.merge_depth, 0) ` +
  `WHEN coalesce(p.merge_depth, 0) > qDepth THEN p.merge_depth + 1 ELSE qDepth + 1 END AS depth ` +
  `WITH f, extra, mergeOf, depth, CASE WHEN qStale IS NOT NULL AND qStale < first THEN qStale ELSE first END AS expected ` +
  // A merge may be stale before its parents say (a confirmation above raised them, not it: confirm.ts);
  // a confirmed merge has no local rule.
  `WITH f, mergeOf, depth, expected, CASE WHEN f.stale_at IS NULL THEN true ` +
  `WHEN extra > 0 THEN indegree(f, 'CONFIRMS') = 0 AND f.stale_at > expected ` +
  `WHEN indegree(f, 'CONFIRMS') = 0 THEN f.stale_at <> expected ELSE f.stale_at < expected END AS staleOff ` +
  `WHERE staleOff OR coalesce(f.merge_of, '') <> coalesce(mergeOf, '') OR coalesce(f.merge_depth, 0) <> depth ` +
  `RETURN f.id AS id, CASE WHEN staleOff THEN 'stale_at' WHEN coalesce(f.merge_of, '') <> coalesce(mergeOf, '') ` +
  `THEN 'merge_of' ELSE 'merge_depth' END AS field, ` +
  `CASE WHEN staleOff THEN f.stale_at WHEN coalesce(f.merge_of, '') <> coalesce(mergeOf, '') THEN f.merge_of ` +
  `ELSE f.merge_depth END AS stored, ` +
  `CASE WHEN staleOff THEN expected WHEN coalesce(f.merge_of, '') <> coalesce(mergeOf, '') THEN mergeOf ` +
  `ELSE depth END AS expected`

const Value = Schema.NullOr(Schema.Union(Schema.Number, Schema.String))
const DriftRow = Schema.Struct({
  id: Schema.String,
  /** What is off: the stamp, or where the fact sits among merges (`merge_of`, `merge_depth`). */
  field: Schema.Literal("stale_at", "merge_of", "merge_depth"),
  stored: Value,
  expected: Value
})
export type Drift = typeof DriftRow.Type

const TopRow = Schema.Struct({ top: Schema.NullOr(Schema.Number), facts: Schema.Number })

export interface Verified {
  readonly facts: number
  readonly drifted: number
  /** The first drifted facts found (at most `shown`). */
  readonly examples: ReadonlyArray<Drift>
  /** Forked parents, and the first (at most `shown`) whose window says open where they are not, or the reverse. */
  readonly forks: number
  readonly forksDrifted: number
  readonly forkExamples: ReadonlyArray<ForkDrift>
}

export const verifyStored = Effect.fn("relay/factStore/verifyStored")(function*(
  db: GraphDatabase["Type"],
  shown = 10
) {
  const { facts, top } =
    (yield* db.read("MATCH (f:Fact) RETURN max(id(f)) AS top, count(f) AS facts", {}, TopRow))[0] ??
      { facts: 0, top: null }
  const examples: Array<Drift> = []
  let drifted = 0
  for (let lo = 0; top !== null && lo <= top; lo += verifyBatch) {
    const rows = yield* db.read(driftQuery, { lo, hi: lo + verifyBatch }, DriftRow)
    drifted += rows.length
    examples.push(...rows.slice(0, Math.max(0, shown - examples.length)))
  }
  const forks = yield* forkDrift(db)
  return {
    facts,
    drifted,
    examples,
    forks: forks.forks,
    forksDrifted: forks.drifted.length,
    forkExamples: forks.drifted.slice(0, shown)
  } satisfies Verified
})
