import { Effect, Schema } from "effect"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { type TaskCountDrift, taskCountDrift } from "../tasks/taskCounts.js"
import { type ClusterDrift, clusterDrift } from "./clusterMigration.js"
import { type ForkDrift, forkDrift } from "./forkWindow.js"
import { inheritedStale, neverStale } from "./staleness.js"

/**
 * `check-db --verify`: every fact's stored `stale_at`, `merge_of` and `merge_depth` against what its
 * edges say now (domain/model/stored.ts). The stamp obeys one local rule, a root's is never and a child's is its
 * parent's inherited one, and every write keeps it inside its own statement; so checking the rule
 * fact by fact (a confirmed fact's only as a floor: a confirmation drops stamps the parent's hides), with the parent read in the same statement, checks every stamp against the whole
 * chain above it, in bounded batches of node ids, while others write. Each fork's window likewise
 * (forkWindow.ts): whether it says open against the parent's pairs now. And the board's task
 * counters against a recount.
 */
export const verifyBatch = 10_000

/** Binding `f`, `staleOff`, `expected`, `mergeOf` and `depth`: the facts where one is off, and which. */
const driftRows =
  `WITH f, staleOff, expected, mergeOf, depth, coalesce(f.merge_of, '') <> coalesce(mergeOf, '') AS placeOff ` +
  `WHERE staleOff OR placeOff OR coalesce(f.merge_depth, 0) <> depth ` +
  `RETURN f.id AS id, CASE WHEN staleOff THEN 'stale_at' WHEN placeOff THEN 'merge_of' ELSE 'merge_depth' END AS field, ` +
  `CASE WHEN staleOff THEN f.stale_at WHEN placeOff THEN f.merge_of ELSE f.merge_depth END AS stored, ` +
  `CASE WHEN staleOff THEN expected WHEN placeOff THEN mergeOf ELSE depth END AS expected`

/** Facts on one parent or none: the stamp, the nearest merge and the merge depth are the parent's. */
const plainDrift = `MATCH (f:Fact) WHERE id(f) >= $lo AND id(f) < $hi AND outdegree(f, 'ALSO_ON') = 0 ` +
  `OPTIONAL MATCH (f)-[:BUILDS_ON]->(p) ` +
  `WITH f, p, CASE WHEN p IS NULL THEN ${neverStale} ELSE ${inheritedStale("p")} END AS expected ` +
  `WITH f, expected, p.merge_of AS mergeOf, coalesce(p.merge_depth, 0) AS depth, ` +
  `CASE WHEN f.stale_at IS NULL THEN true WHEN indegree(f, 'CONFIRMS') = 0 THEN f.stale_at <> expected ` +
  `ELSE f.stale_at < expected END AS staleOff ` +
  driftRows

/**
 * Merges, found from their ALSO_ON edges (read for every fact, the extra parents made the check of
 * 200,000 facts take twice as long): a merge is its own nearest merge, one deeper than its deepest
 * parent, and may be stale before its parents say (a confirmation above raised them, not it:
 * confirm.ts); a confirmed merge has no local rule.
 */
const mergeDrift = `MATCH (f:Fact)-[:ALSO_ON]->(q) WHERE id(f) >= $lo AND id(f) < $hi ` +
  `WITH f, min(${inheritedStale("q")}) AS qStale, max(coalesce(q.merge_depth, 0)) AS qDepth ` +
  `MATCH (f)-[:BUILDS_ON]->(p) ` +
  `WITH f, qStale, qDepth, p, ${inheritedStale("p")} AS first ` +
  `WITH f, CASE WHEN qStale < first THEN qStale ELSE first END AS expected, f.id AS mergeOf, ` +
  `CASE WHEN coalesce(p.merge_depth, 0) > qDepth THEN p.merge_depth + 1 ELSE qDepth + 1 END AS depth ` +
  `WITH f, expected, mergeOf, depth, ` +
  `f.stale_at IS NULL OR (indegree(f, 'CONFIRMS') = 0 AND f.stale_at > expected) AS staleOff ` +
  driftRows

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
  /** Each task counter (tasks/taskCounts.ts) that a recount of the board does not give. */
  readonly taskCounts: ReadonlyArray<TaskCountDrift>
  /** Threads and clusters recomputed from the edges against what is stored (clusterMigration.ts). */
  readonly clusters: ClusterDrift
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
    const range = { lo, hi: lo + verifyBatch }
    const rows = [...yield* db.read(plainDrift, range, DriftRow), ...yield* db.read(mergeDrift, range, DriftRow)]
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
    forkExamples: forks.drifted.slice(0, shown),
    taskCounts: yield* taskCountDrift(db),
    clusters: yield* clusterDrift(db)
  } satisfies Verified
})
