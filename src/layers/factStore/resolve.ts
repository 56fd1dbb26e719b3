import { Effect, Schema } from "effect"
import { staleDefault } from "../../domain/chainPaging.js"
import { InvalidInput, InvalidResolution, noFactWithId } from "../../domain/errors.js"
import { requestIdMessage } from "../../domain/requestId.js"
import { resolutionMessage } from "../../domain/rules.js"
import { Stamp } from "../../domain/time.js"
import type { Resolution, Resolved } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { clockWrite } from "../database/clock.js"
import { leanRelatedClause, relatedClause } from "./buildsOn.js"
import { settleFork } from "./forkWindow.js"
import { foundIds } from "./foundIds.js"
import { impact } from "./impact.js"
import { anyMerge, leanUnlessMerged, type MergeGate } from "./mergeGate.js"
import { FactFromRow, factMap, stampClause } from "./projection.js"
import { onCreateSet, resolutionProps } from "./recordProps.js"
import { leanMarkDependents, markDependents } from "./staleness.js"
import { joinClusters } from "./threadClusters.js"

/**
 * Checks the rules and records the decision in one statement, so concurrent identical calls leave
 * one edge (MERGE), keep the first reason (ON CREATE), and two opposite calls cannot both pass the
 * cycle check. `existing` is read before the MERGE, which is what makes already_resolved truthful;
 * the edge keeps the id of the call that made it, so a retry of that same call (its first try
 * landed but the reply was lost) still answers already_resolved: false.
 *
 * The cycle check is a reachability test, not a path count: SUPERSEDES edges form a DAG in which
 * the number of paths can double at every step (two facts a layer, each superseding both of the
 * next: 2^28 paths held the write lock ~55 s), and a pattern comprehension enumerates each path.
 * shortestPath() runs one BFS (LAGraph) over the SUPERSEDES matrix: linear in those edges.
 * The loser's dependents are marked stale from the decision's stamp in the same statement (staleness.ts).
 * The BUILDS_ON checks are walks up (buildsOn.ts): a fact has one parent (saveFact links it in the
 * statement that creates it), so there is one path up and the walk is linear in the depth, while
 * shortestPath's BFS costs ~25 us a level (70 ms on a 3,000-deep chain against ~5 ms).
 */
/**
 * `lean`: for a graph without merges (mergeGate.ts), without the rounds through extra parents; it
 * also says `merged`, and writes nothing when the graph has a merge (the full statement runs then).
 */
const resolveStatement = (lean: boolean) => {
  const m = lean ? ["merged"] : []
  const writes = lean ? "NOT merged AND " : ""
  const carry = ["w", "l", ...m, "existing", "cycle", "related", "r", "ts"]
  return `MATCH (w:Fact {id: $winnerId}), (l:Fact {id: $loserId}) ${lean ? anyMerge(["w", "l"]) : ""}` +
    `WITH w, l, ${m.map((v) => `${v}, `).join("")}size([(w)-[:SUPERSEDES]->(l) | 1]) > 0 AS existing, ` +
    `shortestPath((l)-[:SUPERSEDES*]->(w)) IS NOT NULL AS cycle ` +
    (lean ? leanRelatedClause : relatedClause)(["w", "l", ...m, "existing", "cycle"]) +
    `${stampClause(["w", "l", ...m, "existing", "cycle", "related"])} ` +
    `FOREACH (_ IN CASE WHEN ${writes}(existing OR (NOT cycle AND NOT related)) THEN [1] ELSE [] END | ` +
    `MERGE (w)-[r:SUPERSEDES]->(l) ` +
    `${
      onCreateSet("r", resolutionProps({ reason: "$reason", by: "$resolvedBy", at: "ts" }, { call_id: "$callId" }))
    }) ` +
    // Only the MERGE that makes the edge uses the stamp (writes run one at a time: `existing` holds).
    clockWrite({ last: "ts" }, `${writes}NOT existing AND NOT cycle AND NOT related`) +
    `WITH w, l, ${m.map((v) => `${v}, `).join("")}existing, cycle, related, ts ` +
    `OPTIONAL MATCH (w)-[r:SUPERSEDES]->(l) ` +
    // Only when this call made the edge: a repeat marking with the first stamp would undo a confirmation since.
    (lean ? leanMarkDependents : markDependents)("l", "CASE WHEN r.created_at = ts THEN r.created_at END", carry) +
    // The loser leaves each parent's pairs: their windows may end here (forkWindow.ts).
    `OPTIONAL MATCH (l)-[:BUILDS_ON|ALSO_ON]->(lp) ` +
    settleFork("lp", "ts", "r.created_at = ts", carry) +
    `WITH ${carry.join(", ")}, count(*) AS settled ` +
    `RETURN ${
      m.map((v) => `${v}, `).join("")
    }existing AND coalesce(r.call_id, '') <> $callId AS existing, cycle, related, ` +
    `r.reason AS reason, r.resolved_by AS resolved_by, ` +
    `r.created_at AS created_at, ${factMap("w")} AS winner, ${factMap("l")} AS loser`
}

export const resolveQuery = resolveStatement(false)
export const leanResolveQuery = resolveStatement(true)

const Row = Schema.Struct({
  merged: Schema.optional(Schema.Boolean),
  existing: Schema.Boolean,
  cycle: Schema.Boolean,
  related: Schema.Boolean,
  reason: Schema.NullOr(Schema.String),
  resolved_by: Schema.NullOr(Schema.String),
  created_at: Schema.NullOr(Stamp),
  winner: FactFromRow,
  loser: FactFromRow
})

const missing = (db: GraphDatabase["Type"], r: Resolution) =>
  foundIds(db, [r.winnerId, r.loserId]).pipe(
    Effect.flatMap((found) =>
      Effect.fail(
        found.has(r.winnerId) ? noFactWithId("loser_fact_id", r.loserId) : noFactWithId("winner_fact_id", r.winnerId)
      )
    )
  )

export const resolve = Effect.fn("relay/factStore/resolve")(
  function*(db: GraphDatabase["Type"], gate: MergeGate, now: number, r: Resolution) {
    if (r.winnerId === r.loserId) {
      return yield* new InvalidResolution({ message: resolutionMessage.winner_is_loser })
    }
    const params = {
      callId: r.callId,
      winnerId: r.winnerId,
      loserId: r.loserId,
      reason: r.reason,
      resolvedBy: r.resolvedBy,
      now
    }
    const rows = yield* leanUnlessMerged(
      gate,
      db.write(leanResolveQuery, params, Row),
      db.write(resolveQuery, params, Row)
    )
    const row = rows[0]
    if (row === undefined) return yield* missing(db, r)
    if (row.created_at === null || row.reason === null || row.resolved_by === null) {
      return yield* new InvalidResolution({
        message: row.cycle ? resolutionMessage.supersedes_cycle : resolutionMessage.builds_on_each_other
      })
    }
    // Not already resolved yet a reason other than ours: the edge is this request_id's, made by an
    // earlier call with another reason. Nothing was written (the MERGE found the edge).
    if (!row.existing && row.reason !== r.reason) {
      return yield* new InvalidInput({ message: requestIdMessage.resolve })
    }
    // The decision joins the two facts' clusters (threadClusters.ts); a repeat heals a join a crash lost.
    yield* joinClusters(db, r.winnerId, r.loserId)
    const stale = yield* impact(
      db,
      gate,
      r.loserId,
      { limit: r.staleLimit ?? staleDefault, cursor: null },
      "loser_fact_id"
    )
    const resolved: Resolved = {
      winner: row.winner,
      loser: row.loser,
      reason: row.reason,
      resolvedBy: row.resolved_by,
      createdAt: row.created_at,
      alreadyResolved: row.existing,
      stale: stale.items,
      staleNextCursor: stale.next_cursor
    }
    return resolved
  }
)
