import { Effect, Schema } from "effect"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { type ForkDrift, forkDrift } from "./forkWindow.js"
import { inheritedStale, neverStale } from "./staleness.js"

/**
 * `check-db --verify`: every fact's stored `stale_at` against what its edges say now
 * (domain/model/stored.ts). The stamp obeys one local rule, a root's is never and a child's is its
 * parent's inherited one, and every write keeps it inside its own statement; so checking the rule
 * fact by fact (a confirmed fact's only as a floor: a confirmation drops stamps the parent's hides), with the parent read in the same statement, checks every stamp against the whole
 * chain above it, in bounded batches of node ids, while others write. Each fork's window likewise
 * (forkWindow.ts): whether it says open against the parent's pairs now.
 */
export const verifyBatch = 10_000

const driftQuery = `MATCH (f:Fact) WHERE id(f) >= $lo AND id(f) < $hi ` +
  `OPTIONAL MATCH (f)-[:BUILDS_ON]->(p) ` +
  `WITH f, CASE WHEN p IS NULL THEN ${neverStale} ELSE ${inheritedStale("p")} END AS expected ` +
  `WHERE f.stale_at IS NULL OR CASE WHEN indegree(f, 'CONFIRMS') = 0 THEN f.stale_at <> expected ` +
  `ELSE f.stale_at < expected END ` +
  `RETURN f.id AS id, f.stale_at AS stored, expected`

const DriftRow = Schema.Struct({ id: Schema.String, stored: Schema.NullOr(Schema.Number), expected: Schema.Number })
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
