import { Effect, Schema } from "effect"
import { InvalidInput, InvalidResolution, noFactWithId } from "../../domain/errors.js"
import { requestIdMessage } from "../../domain/requestId.js"
import { compatibleMessage } from "../../domain/rules.js"
import { Stamp } from "../../domain/time.js"
import type { Compatibility, CompatibleRecord } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { foundIds } from "./foundIds.js"
import { FactFromRow, factMap, stampClause } from "./projection.js"

/**
 * Records two siblings as compatible in one statement: `(x)-[:COMPATIBLE]->(y)` with x.id < y.id, so a
 * pair has one edge whichever order it was named in, and MERGE keeps the first record for a repeat.
 * Checked inside the statement like a decision (see resolve.ts): the two must share a parent, and
 * neither may supersede the other through any chain of decisions (shortestPath: one BFS each way).
 * No Fact is changed and nothing turns stale: the record only takes the pair out of the conflicts.
 * COMPATIBLE edges are read by type() (see below), never by a typed pattern.
 */
export const compatibleQuery = `MATCH (x:Fact {id: $x}), (y:Fact {id: $y}) ` +
  `WITH x, y, size([(x)-[x_e]->(y) WHERE type(x_e) = 'COMPATIBLE' | 1]) > 0 AS existing, ` +
  `head([(x)-[:BUILDS_ON]->(x_up) | id(x_up)]) AS xParent, head([(y)-[:BUILDS_ON]->(y_up) | id(y_up)]) AS yParent, ` +
  `shortestPath((x)-[:SUPERSEDES*]->(y)) IS NOT NULL OR shortestPath((y)-[:SUPERSEDES*]->(x)) IS NOT NULL AS decided ` +
  // Both parents tested: a root's null parent made `xParent = yParent` null, not false (the row decode found it).
  `WITH x, y, existing, decided, xParent IS NOT NULL AND yParent IS NOT NULL AND xParent = yParent AS siblings ` +
  `${stampClause(["x", "y", "existing", "decided", "siblings"])} ` +
  `FOREACH (_ IN CASE WHEN existing OR (siblings AND NOT decided) THEN [1] ELSE [] END | ` +
  `MERGE (x)-[r:COMPATIBLE]->(y) ` +
  `ON CREATE SET r.reason = $reason, r.resolved_by = $resolvedBy, r.created_at = ts, r.call_id = $callId, ` +
  `clk.last = ts) ` +
  `WITH x, y, existing, decided, siblings ` +
  // By type(), not (x)-[r:COMPATIBLE]->(y): a statement planned while the graph had no COMPATIBLE edge
  // (before this MERGE made the type, or a cached plan from then) finds nothing with the typed pattern.
  `OPTIONAL MATCH (x)-[r]->(y) WHERE type(r) = 'COMPATIBLE' ` +
  `RETURN existing AND coalesce(r.call_id, '') <> $callId AS existing, decided, siblings, r.reason AS reason, ` +
  `r.resolved_by AS resolved_by, r.created_at AS created_at, ${factMap("x")} AS x, ${factMap("y")} AS y`

const Row = Schema.Struct({
  existing: Schema.Boolean,
  decided: Schema.Boolean,
  siblings: Schema.Boolean,
  reason: Schema.NullOr(Schema.String),
  resolved_by: Schema.NullOr(Schema.String),
  created_at: Schema.NullOr(Stamp),
  x: FactFromRow,
  y: FactFromRow
})

const missing = (db: GraphDatabase["Type"], ids: ReadonlyArray<string>) =>
  foundIds(db, ids).pipe(
    Effect.flatMap((found) => Effect.fail(noFactWithId("fact_ids", ids.find((id) => !found.has(id)) ?? ids[0]!)))
  )

export const compatible = Effect.fn("relay/factStore/compatible")(
  function*(db: GraphDatabase["Type"], now: number, c: Compatibility) {
    const [first, second] = c.factIds
    if (first === second) return yield* new InvalidResolution({ message: compatibleMessage.same_fact })
    const [x, y] = first < second ? [first, second] : [second, first]
    const rows = yield* db.write(compatibleQuery, {
      x,
      y,
      callId: c.callId,
      reason: c.reason,
      resolvedBy: c.resolvedBy,
      now
    }, Row)
    const row = rows[0]
    if (row === undefined) return yield* missing(db, [first, second])
    if (row.created_at === null || row.reason === null || row.resolved_by === null) {
      return yield* new InvalidResolution({
        message: row.siblings ? compatibleMessage.already_superseded : compatibleMessage.not_siblings
      })
    }
    // As in resolve.ts: this request_id's record, made earlier with another reason. Nothing was written.
    if (!row.existing && row.reason !== c.reason) return yield* new InvalidInput({ message: requestIdMessage.resolve })
    const record: CompatibleRecord = {
      facts: [row.x, row.y],
      reason: row.reason,
      resolvedBy: row.resolved_by,
      createdAt: row.created_at,
      alreadyResolved: row.existing
    }
    return record
  }
)
