import { Effect, Schema } from "effect"
import { InvalidInput, InvalidResolution, noFactWithId } from "../../domain/errors.js"
import { requestIdMessage } from "../../domain/requestId.js"
import { compatibleMessage } from "../../domain/rules.js"
import { Stamp } from "../../domain/time.js"
import type { Compatibility, CompatibleRecord } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { clockWrite } from "../database/clock.js"
import { settleFork } from "./forkWindow.js"
import { foundIds } from "./foundIds.js"
import { FactFromRow, factMap, stampClause } from "./projection.js"
import { onCreateSet, resolutionProps } from "./recordProps.js"

/**
 * Records two siblings as compatible in one statement: `(x)-[:COMPATIBLE]->(y)` with x.id < y.id, so a
 * pair has one edge whichever order it was named in, and MERGE keeps the first record for a repeat.
 * Checked inside the statement like a decision (see resolve.ts): the two must share a parent, and
 * neither may supersede the other through any chain of decisions (shortestPath: one BFS each way).
 * No Fact is changed and nothing turns stale: the record only takes the pair out of the conflicts.
 * COMPATIBLE edges are read by type() (see below), never by a typed pattern.
 */
const pairFlags = `MATCH (x:Fact {id: $x}), (y:Fact {id: $y}) ` +
  `WITH x, y, size([(x)-[x_e]->(y) WHERE type(x_e) = 'COMPATIBLE' | 1]) > 0 AS existing, ` +
  // Named apart from factMap's `x_up` in the RETURN: FalkorDB 4.16 binds a comprehension variable once a query.
  // Every parent, first and extra (builds_on): siblings share one.
  `[(x)-[x_pe]->(x_parent) WHERE type(x_pe) IN ['BUILDS_ON', 'ALSO_ON'] | id(x_parent)] AS xParents, ` +
  `[(y)-[y_pe]->(y_parent) WHERE type(y_pe) IN ['BUILDS_ON', 'ALSO_ON'] | id(y_parent)] AS yParents, ` +
  `shortestPath((x)-[:SUPERSEDES*]->(y)) IS NOT NULL OR shortestPath((y)-[:SUPERSEDES*]->(x)) IS NOT NULL AS decided ` +
  // Both parents tested: a root's null parent made `xParent = yParent` null, not false (the row decode found it).
  `WITH x, y, existing, decided, any(x_p IN xParents WHERE x_p IN yParents) AS siblings `

/**
 * The rules of one pair, read only: what compatibleQuery would find, before anything of a list is
 * written, and the pair's record if it has one (its call id tells a retry of this request apart).
 */
const checkQuery = `${pairFlags}OPTIONAL MATCH (x)-[r]->(y) WHERE type(r) = 'COMPATIBLE' ` +
  `RETURN existing, decided, siblings, r.call_id AS call_id, r.reason AS reason`

export const compatibleQuery = pairFlags +
  `${stampClause(["x", "y", "existing", "decided", "siblings"])} ` +
  `FOREACH (_ IN CASE WHEN existing OR (siblings AND NOT decided) THEN [1] ELSE [] END | ` +
  `MERGE (x)-[r:COMPATIBLE]->(y) ` +
  `${onCreateSet("r", resolutionProps({ reason: "$reason", by: "$resolvedBy", at: "ts" }, { call_id: "$callId" }))}) ` +
  // Only the MERGE that makes the record uses the stamp (writes run one at a time: `existing` holds).
  clockWrite({ last: "ts" }, "NOT existing AND siblings AND NOT decided") +
  `WITH x, y, existing, decided, siblings, ts ` +
  // By type(), not (x)-[r:COMPATIBLE]->(y): a statement planned while the graph had no COMPATIBLE edge
  // (before this MERGE made the type, or a cached plan from then) finds nothing with the typed pattern.
  `OPTIONAL MATCH (x)-[r]->(y) WHERE type(r) = 'COMPATIBLE' ` +
  // The pair is no longer open: the windows of the parents they share may end here (forkWindow.ts).
  `WITH x, y, existing, decided, siblings, r, ts OPTIONAL MATCH (x)-[:BUILDS_ON|ALSO_ON]->(xp)<-[:BUILDS_ON|ALSO_ON]-(y) ` +
  settleFork("xp", "ts", "r.created_at = ts", ["x", "y", "existing", "decided", "siblings", "r", "ts"]) +
  `WITH x, y, existing, decided, siblings, r, ts, count(*) AS settled ` +
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

const CheckRow = Schema.Struct({
  existing: Schema.Boolean,
  decided: Schema.Boolean,
  siblings: Schema.Boolean,
  call_id: Schema.NullOr(Schema.String),
  reason: Schema.NullOr(Schema.String)
})

/** Every pair of the listed facts, each in the order it is stored (the smaller id first). */
const pairsOf = (ids: ReadonlyArray<string>): Array<readonly [string, string]> =>
  ids.flatMap((a, i) => ids.slice(i + 1).map((b) => (a < b ? [a, b] as const : [b, a] as const)))

/** One pair recorded in its own statement, which checks the pair's rules again as it writes. */
const recordPair = (db: GraphDatabase["Type"], now: number, c: Compatibility, [x, y]: readonly [string, string]) =>
  Effect.gen(function*() {
    const rows = yield* db.write(compatibleQuery, {
      x,
      y,
      callId: c.callId,
      reason: c.reason,
      resolvedBy: c.resolvedBy,
      now
    }, Row)
    const row = rows[0]
    if (row === undefined) return yield* missing(db, [x, y])
    if (row.created_at === null || row.reason === null || row.resolved_by === null) {
      return yield* new InvalidResolution({
        message: row.siblings ? compatibleMessage.already_superseded : compatibleMessage.not_siblings
      })
    }
    return { ...row, created_at: row.created_at, reason: row.reason, resolved_by: row.resolved_by }
  })

/**
 * Records every pair of the listed siblings as compatible (a fork of five details is one call, not
 * ten). Every pair is checked first, read only, so a list that breaks a rule writes nothing: a
 * missing fact (the first named), then per pair not siblings or already decided, except for a pair
 * already recorded, which stands whatever was decided since (idempotent, as one pair always was);
 * and a request_id whose earlier record of a pair has another reason. Then each pair is written by
 * its own statement, which checks its rules again (a decision made between the check and the write
 * refuses that pair, and the pairs written before it stand: each is a valid record on its own, and
 * a retry with the same request_id finds them). The answer is the first record this call made (or
 * an earlier try of its request_id made), and the first pair's older record only when every pair
 * was recorded before (`alreadyResolved`).
 */
export const compatible = Effect.fn("relay/factStore/compatible")(
  function*(db: GraphDatabase["Type"], now: number, c: Compatibility) {
    if (new Set(c.factIds).size < c.factIds.length) {
      return yield* new InvalidResolution({ message: compatibleMessage.same_fact })
    }
    const pairs = pairsOf(c.factIds)
    const checks = yield* Effect.forEach(
      pairs,
      ([x, y]) => db.read(checkQuery, { x, y }, CheckRow),
      { concurrency: 4 }
    )
    if (checks.some((rows) => rows[0] === undefined)) return yield* missing(db, c.factIds)
    const rows = checks.map((r) => r[0]!)
    for (const row of rows) {
      if (row.existing) continue
      if (!row.siblings) return yield* new InvalidResolution({ message: compatibleMessage.not_siblings })
      if (row.decided) return yield* new InvalidResolution({ message: compatibleMessage.already_superseded })
    }
    // As in resolve.ts: this request_id's record, made earlier with another reason. Nothing is written.
    if (rows.some((r) => r.existing && r.call_id === c.callId && r.reason !== c.reason)) {
      return yield* new InvalidInput({ message: requestIdMessage.resolve })
    }
    const written = yield* Effect.forEach(pairs, (pair) => recordPair(db, now, c, pair))
    // A row is "existing" only when another call made it (see compatibleQuery).
    const made = written.find((r) => !r.existing)
    const shown = made ?? written[0]!
    const facts = new Map(written.flatMap((r) => [[r.x.id, r.x], [r.y.id, r.y]] as const))
    const record: CompatibleRecord = {
      facts: c.factIds.map((id) => facts.get(id)!),
      reason: shown.reason,
      resolvedBy: shown.resolved_by,
      createdAt: shown.created_at,
      alreadyResolved: made === undefined
    }
    return record
  }
)
