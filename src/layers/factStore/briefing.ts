import { Effect } from "effect"
import type { Decision } from "../../domain/fact.js"
import { briefingWindow } from "../../domain/rules.js"
import { toIso } from "../../domain/time.js"
import type { Briefing } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { openConflicts } from "./conflicts.js"
import { factMap, type FactRow, toFact } from "./projection.js"

/**
 * The fence: as_of is the later of the Clock's now and the graph's last stamp, and it becomes the
 * last stamp, so every write that commits after this statement is stamped strictly after as_of.
 * That is what lets a caller chain briefings (since = previous as_of) and see everything once.
 */
export const fenceQuery = `MERGE (clk:RelayClock {id: 0}) ` +
  `WITH clk, CASE WHEN clk.last IS NULL OR $now > clk.last THEN $now ELSE clk.last END AS asOf ` +
  `SET clk.last = asOf RETURN asOf`

export const newFactsQuery = `MATCH (f:Fact) WHERE f.created_at > $since AND f.created_at <= $asOf ` +
  `AND f.written_by <> $reader ` +
  `WITH f ORDER BY f.created_at RETURN ${factMap("f")} AS fact`

/** Unlabelled ends (only facts carry SUPERSEDES), so the planner starts from the edge index on created_at. */
export const decisionsQuery = `MATCH (w)-[r:SUPERSEDES]->(l) ` +
  `WHERE r.created_at > $since AND r.created_at <= $asOf AND r.resolved_by <> $reader ` +
  `WITH w, r, l ORDER BY r.created_at ` +
  `RETURN ${factMap("w")} AS winner, ${factMap("l")} AS loser, r.reason AS reason, ` +
  `r.resolved_by AS resolved_by, r.created_at AS created_at`

interface DecisionRow {
  readonly winner: FactRow
  readonly loser: FactRow
  readonly reason: string
  readonly resolved_by: string
  readonly created_at: number
}

export const briefing = Effect.fn("FactStore.briefing")(function*(
  db: GraphDatabase["Type"],
  now: number,
  reader: string,
  requestedSince: number | null
) {
    const fence = yield* db.write<{ asOf: number }>(fenceQuery, { now })
    const asOf = fence[0]?.asOf ?? now
    const { since } = briefingWindow(asOf, requestedSince)
    const params = { since, asOf, reader }
    const [facts, decisions, conflicts] = yield* Effect.all([
      db.read<{ fact: FactRow }>(newFactsQuery, params),
      db.read<DecisionRow>(decisionsQuery, params),
      openConflicts(db)
    ], { concurrency: "unbounded" })
    const result: Briefing = {
      asOf,
      since,
      newFacts: facts.map((r) => toFact(r.fact)),
      decisions: decisions.map((d): Decision => ({
        winner: toFact(d.winner),
        loser: toFact(d.loser),
        reason: d.reason,
        resolved_by: d.resolved_by,
        created_at: toIso(d.created_at)
      })),
      openConflicts: conflicts
    }
    return result
  })
