import { Effect, Schema } from "effect"
import { staleDefault } from "../../domain/chainPaging.js"
import { InvalidInput, noFactWithId } from "../../domain/errors.js"
import { requestIdMessage } from "../../domain/requestId.js"
import { Stamp } from "../../domain/time.js"
import type { Retracted, Retraction } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { clockWrite } from "../database/clock.js"
import { settleFork } from "./forkWindow.js"
import { impact } from "./impact.js"
import { anyMerge, leanUnlessMerged, type MergeGate } from "./mergeGate.js"
import { FactFromRow, factMap, stampClause } from "./projection.js"
import { retractionOf, retractionProps } from "./recordProps.js"
import { leanMarkDependents, markDependents } from "./staleness.js"

/**
 * Retracts a fact in one statement: `(:Retraction {id, reason, retracted_by, created_at})-[:RETRACTS]->(f)`,
 * made only when the fact has none, so concurrent calls leave one and every later call answers the
 * first (FalkorDB runs one write statement at a time per graph). The edge carries the stamp too, so
 * a read as of a time can filter it without reading the node. The fact's dependents are marked stale
 * from the retraction's stamp in the same statement (staleness.ts).
 * `existing` is read before the write; the Retraction keeps the id of the call that made it, so a
 * retry of that call (its first try landed, the reply was lost) still answers already_retracted: false.
 */
const retractStatement = (lean: boolean) => {
  // Lean: for a graph without merges (mergeGate.ts), without the rounds through extra parents; it
  // says `merged`, and writes nothing when the graph has a merge (the full statement runs then).
  const m = lean ? ["merged"] : []
  const writes = lean ? "NOT merged AND " : ""
  const carry = ["f", ...m, "old", "r"]
  return `MATCH (f:Fact {id: $factId}) ${lean ? anyMerge(["f"]) : ""}` +
    `OPTIONAL MATCH (f)<-[:RETRACTS]-(old:Retraction) ` +
    `WITH ${["f", ...m].join(", ")}, head(collect(old)) AS old ` +
    `${stampClause(["f", ...m, "old"])} ` +
    `FOREACH (_ IN CASE WHEN ${writes}old IS NULL THEN [1] ELSE [] END | ` +
    `CREATE ${
      retractionOf(retractionProps({ id: "$id", reason: "$reason", by: "$retractedBy", at: "ts" }, {}), "f")
    }) ` +
    clockWrite({ last: "ts" }, `${writes}old IS NULL`) +
    `WITH ${["f", ...m, "old"].join(", ")} ` +
    // Optional in the lean form: when it wrote nothing there may be no Retraction to read back.
    `${lean ? "OPTIONAL " : ""}MATCH (f)<-[:RETRACTS]-(r:Retraction) ` +
    // Only when this call made it: a repeat marking with the first stamp would undo a confirmation since.
    (lean ? leanMarkDependents : markDependents)("f", "CASE WHEN old IS NULL THEN r.created_at END", carry) +
    // The fact leaves each parent's pairs: their windows may end here (forkWindow.ts).
    `OPTIONAL MATCH (f)-[:BUILDS_ON|ALSO_ON]->(fp) ` +
    settleFork("fp", "r.created_at", `${writes}old IS NULL`, carry) +
    `WITH ${carry.join(", ")}, count(*) AS settled ` +
    `RETURN ${m.map((v) => `${v}, `).join("")}old IS NOT NULL AND old.id <> $id AS existing, r.id AS id, ` +
    `r.reason AS reason, r.retracted_by AS retracted_by, r.created_at AS created_at, ${factMap("f")} AS fact`
}

export const retractQuery = retractStatement(false)
export const leanRetractQuery = retractStatement(true)

const Row = Schema.Struct({
  merged: Schema.optional(Schema.Boolean),
  existing: Schema.Boolean,
  // Null only in a lean answer that wrote nothing (a merge exists), which is never used.
  id: Schema.NullOr(Schema.String),
  reason: Schema.NullOr(Schema.String),
  retracted_by: Schema.NullOr(Schema.String),
  created_at: Schema.NullOr(Stamp),
  fact: FactFromRow
})

export const retract = Effect.fn("relay/factStore/retract")(
  function*(db: GraphDatabase["Type"], gate: MergeGate, now: number, r: Retraction) {
    const params = { factId: r.factId, id: r.callId, reason: r.reason, retractedBy: r.retractedBy, now }
    const rows = yield* leanUnlessMerged(
      gate,
      db.write(leanRetractQuery, params, Row),
      db.write(retractQuery, params, Row)
    )
    const row = rows[0]
    if (row === undefined) return yield* noFactWithId("fact_id", r.factId)
    if (row.id === null || row.reason === null || row.retracted_by === null || row.created_at === null) {
      return yield* Effect.dieMessage("a retraction that wrote nothing answered without a merge")
    }
    // This call's id on a retraction with another reason: the request_id was used before with that reason.
    if (!row.existing && row.reason !== r.reason) return yield* new InvalidInput({ message: requestIdMessage.retract })
    const stale = yield* impact(db, gate, r.factId, { limit: r.staleLimit ?? staleDefault, cursor: null })
    const retracted: Retracted = {
      id: row.id,
      fact: row.fact,
      reason: row.reason,
      retractedBy: row.retracted_by,
      createdAt: row.created_at,
      alreadyRetracted: row.existing,
      stale: stale.items,
      staleNextCursor: stale.next_cursor
    }
    return retracted
  }
)
