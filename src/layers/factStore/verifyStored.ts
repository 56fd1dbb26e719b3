import { Clock, Effect, Schema } from "effect"
import { defaultStampAhead } from "../../domain/stampWindow.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { Drift, Verified } from "../../services/StoreCheck.js"
import { clockRead } from "../database/clock.js"
import { recountRuns } from "../procedures/runCounts.js"
import { taskCountDrift } from "../tasks/taskCounts.js"
import { clusterDrift } from "./clusterMigration.js"
import { pairDrift } from "./forkRule.js"
import { forkDrift, openNow } from "./forkWindow.js"
import { inheritedStale, neverStale, staleAt } from "./staleness.js"

/**
 * `check-db --verify`: every fact's stored `stale_at`, `merge_of` and `merge_depth` against what its
 * edges say now (domain/model/stored.ts). The stamp obeys one local rule, a root's is never and a child's is its
 * parent's inherited one, and every write keeps it inside its own statement; so checking the rule
 * fact by fact (a confirmed fact's only as a floor: a confirmation drops stamps the parent's hides), with the parent read in the same statement, checks every stamp against the whole
 * chain above it, in bounded batches of node ids, while others write. Each fork's window likewise
 * (forkWindow.ts): whether it says open against the parent's pairs now. And the board's task
 * counters against a recount.
 */
export const verifyBatch = 5_000

/** Binding `f`, `staleOff`, `expected`, `mergeOf` and `depth`: the facts where one is off, and which. */
const driftRows =
  `WITH f, staleOff, expected, mergeOf, depth, coalesce(f.merge_of, '') <> coalesce(mergeOf, '') AS placeOff ` +
  `WHERE staleOff OR placeOff OR coalesce(f.merge_depth, 0) <> depth ` +
  `RETURN f.id AS id, CASE WHEN staleOff THEN 'stale_at' WHEN placeOff THEN 'merge_of' ELSE 'merge_depth' END AS field, ` +
  `CASE WHEN staleOff THEN f.stale_at WHEN placeOff THEN f.merge_of ELSE f.merge_depth END AS stored, ` +
  `CASE WHEN staleOff THEN expected WHEN placeOff THEN mergeOf ELSE depth END AS expected`

/**
 * Facts on one parent or none: the stamp, the nearest merge and the merge depth are the parent's.
 * The parent's inherited stamp (inheritedStale's rule) is read with an OPTIONAL MATCH only from a
 * parent that has a decision or retraction on it: its pattern comprehension, run for every row of a
 * batch, took most of the statement timeout at 200,000 facts on a busy machine.
 */
const plainDrift = `MATCH (f:Fact) WHERE id(f) >= $lo AND id(f) < $hi AND outdegree(f, 'ALSO_ON') = 0 ` +
  `OPTIONAL MATCH (f)-[:BUILDS_ON]->(p) ` +
  `WITH f, p, CASE WHEN p IS NOT NULL AND indegree(p, 'SUPERSEDES') + indegree(p, 'RETRACTS') > 0 THEN p END AS decided ` +
  `OPTIONAL MATCH (decided)<-[d:SUPERSEDES|RETRACTS]-() ` +
  `WITH f, p, min(d.created_at) AS firstDecision ` +
  `WITH f, p, CASE WHEN p IS NULL THEN ${neverStale} ` +
  `WHEN firstDecision IS NOT NULL AND firstDecision < ${staleAt("p")} THEN firstDecision ` +
  `ELSE ${staleAt("p")} END AS expected ` +
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

/**
 * Forks recomputed from the edges: a parent with an open pair now and no mark, which no conflicts
 * read starts from (an import whose fork-mark statement failed left such parents before the marks
 * were derived from stamps; a write that missed one would too). Parents with two children or more
 * (indegree, no traverse), in the same batches of node ids.
 */
const unmarkedForks = `MATCH (p:Fact) WHERE id(p) >= $lo AND id(p) < $hi AND indegree(p, 'MARKS') = 0 AND ` +
  `indegree(p, 'BUILDS_ON') + indegree(p, 'ALSO_ON') > 1 ` +
  openNow("p", []) +
  `WITH p, fw_open WHERE fw_open RETURN p.id AS id`

/** Facts stamped outside the window (domain/stampWindow.ts), in the same batches. */
const factsOutside =
  `MATCH (f:Fact) WHERE id(f) >= $lo AND id(f) < $hi AND (f.created_at < 0 OR f.created_at > $top) ` +
  `RETURN f.id AS id, f.created_at AS created_at`

/** The clock and the other stamped records outside the window, each through its created_at index. */
const othersOutside = `${clockRead([])}WITH CASE WHEN clk.last > $top OR clk.last < 0 THEN clk.last END AS clockLast ` +
  `OPTIONAL MATCH ()-[s:SUPERSEDES]->() WHERE s.created_at > $top OR s.created_at < 0 ` +
  `WITH clockLast, count(s) AS decisions OPTIONAL MATCH ()-[r:RETRACTS]->() WHERE r.created_at > $top OR r.created_at < 0 ` +
  `WITH clockLast, decisions, count(r) AS retractions ` +
  `OPTIONAL MATCH ()-[c:CONFIRMS]->() WHERE c.created_at > $top OR c.created_at < 0 ` +
  `WITH clockLast, decisions, retractions, count(c) AS confirmations ` +
  `OPTIONAL MATCH (t:Task) WHERE t.created_at > $top OR t.created_at < 0 ` +
  `RETURN clockLast, decisions, retractions, confirmations, count(t) AS tasks`

const IdOnly = Schema.Struct({ id: Schema.String })
const StampedRow = Schema.Struct({ id: Schema.String, created_at: Schema.Number })
const OthersRow = Schema.Struct({
  clockLast: Schema.NullOr(Schema.Number),
  decisions: Schema.Number,
  retractions: Schema.Number,
  confirmations: Schema.Number,
  tasks: Schema.Number
})

const Value = Schema.NullOr(Schema.Union(Schema.Number, Schema.String))
const DriftRow = Schema.Struct({
  id: Schema.String,
  /** What is off: the stamp, or where the fact sits among merges (`merge_of`, `merge_depth`). */
  field: Schema.Literal("stale_at", "merge_of", "merge_depth"),
  stored: Value,
  expected: Value
})

const TopRow = Schema.Struct({ top: Schema.NullOr(Schema.Number), facts: Schema.Number })

export const verifyStored = Effect.fn("relay/factStore/verifyStored")(function*(
  db: GraphDatabase["Type"],
  shown = 10,
  ahead = defaultStampAhead
) {
  const top = (yield* Clock.currentTimeMillis) + ahead
  const { facts, top: topId } =
    (yield* db.read("MATCH (f:Fact) RETURN max(id(f)) AS top, count(f) AS facts", {}, TopRow))[0] ??
      { facts: 0, top: null }
  const examples: Array<Drift> = []
  const unmarkedExamples: Array<string> = []
  const factExamples: Array<{ id: string; created_at: number }> = []
  let drifted = 0
  let unmarked = 0
  let factsOut = 0
  for (let lo = 0; topId !== null && lo <= topId; lo += verifyBatch) {
    const range = { lo, hi: lo + verifyBatch }
    const rows = [...yield* db.read(plainDrift, range, DriftRow), ...yield* db.read(mergeDrift, range, DriftRow)]
    drifted += rows.length
    examples.push(...rows.slice(0, Math.max(0, shown - examples.length)))
    const bare = yield* db.read(unmarkedForks, range, IdOnly)
    unmarked += bare.length
    unmarkedExamples.push(...bare.slice(0, Math.max(0, shown - unmarkedExamples.length)).map((r) => r.id))
    const out = yield* db.read(factsOutside, { ...range, top }, StampedRow)
    factsOut += out.length
    factExamples.push(...out.slice(0, Math.max(0, shown - factExamples.length)))
  }
  const others = (yield* db.read(othersOutside, { top }, OthersRow))[0] ??
    { clockLast: null, decisions: 0, retractions: 0, confirmations: 0, tasks: 0 }
  const forks = yield* forkDrift(db)
  const pairs = yield* pairDrift(db)
  return {
    pairsChecked: pairs.checked,
    pairsDrifted: pairs.drifted.length,
    pairExamples: pairs.drifted.slice(0, shown),
    facts,
    drifted,
    examples,
    forks: forks.forks,
    forksDrifted: forks.drifted.length,
    forkExamples: forks.drifted.slice(0, shown),
    taskCounts: yield* taskCountDrift(db),
    unmarked,
    unmarkedExamples,
    outside: { facts: factsOut, factExamples, ...others },
    clusters: yield* clusterDrift(db),
    runs: yield* recountRuns(db, false)
  } satisfies Verified
})
