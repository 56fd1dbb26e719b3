import { Effect, Option, Schema } from "effect"
import { InvalidInput } from "../../domain/errors.js"
import type { Fact } from "../../domain/fact.js"
import { stillHoldsConfirmationId } from "../../domain/requestId.js"
import { stillHoldsMessage } from "../../domain/rules.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { confirm } from "./confirm.js"
import { neverStale, staleAt } from "./staleness.js"

/**
 * A revision's `still_holds` (domain/model/revision.ts, stillHoldsViolation): dependents of the
 * revised fact that the writer says stay current. Checked before the save, so a wrong one writes
 * nothing; then each is confirmed as relay_confirm_fact does (confirm.ts, its one statement), by the
 * revision's writer for its reason, in a statement of its own right after the save's. FalkorDB has no
 * transaction over statements, and the save's statement (shared with group commit) stays as it is:
 * between the two a reader may see them stale, and a read as of the revision's stamp still does.
 */

const CheckRow = Schema.Struct({
  id: Schema.String,
  below: Schema.Boolean,
  current: Schema.Boolean,
  createdAt: Schema.NullOr(Schema.Number)
})

/**
 * Each named fact builds on the revised one (through any parent) and is current now: not stale, not
 * superseded or retracted. On a retry of a revision that landed (the fact `$id` supersedes it already)
 * a dependent stale from that revision's own stamp passes too, so the retry confirms what the first
 * try left unconfirmed.
 */
// Grouped by o, so a missing o gives no row (an aggregate over nothing alone would give one).
const checkQuery = `MATCH (o:Fact {id: $supersedes}) OPTIONAL MATCH (:Fact {id: $id})-[rv:SUPERSEDES]->(o) ` +
  `WITH o, max(rv.created_at) AS retried UNWIND $held AS hid OPTIONAL MATCH (d:Fact {id: hid}) ` +
  `OPTIONAL MATCH (d)-[:BUILDS_ON|ALSO_ON*1..]->(up) WHERE up = o ` +
  `WITH hid, d, retried, count(up) > 0 AS below ` +
  `RETURN hid AS id, below, d IS NOT NULL AND indegree(d, 'SUPERSEDES') + indegree(d, 'RETRACTS') = 0 AND ` +
  `(${staleAt("d")} = ${neverStale} OR ${staleAt("d")} >= coalesce(retried, ${neverStale})) AS current, ` +
  `d.created_at AS createdAt`

/**
 * Refuses the first named fact the revision would not make stale (invalid_input, `still_holds.<i>`),
 * before anything is written. No row when the revised fact is missing: the save answers that.
 */
export const checkStillHolds = Effect.fn("relay/factStore/checkStillHolds")(function*(
  db: GraphDatabase["Type"],
  id: string,
  supersedes: string,
  held: ReadonlyArray<string>
) {
  const rows = yield* db.read(checkQuery, { id, supersedes, held }, CheckRow)
  const byId = new Map(rows.map((r) => [r.id, r]))
  if (rows.length === 0) return [...new Set(held)]
  const index = held.findIndex((h) => {
    const r = byId.get(h)
    return r === undefined || !r.below || !r.current
  })
  if (index >= 0) return yield* new InvalidInput({ message: stillHoldsMessage(`still_holds.${index}`) })
  // The latest saved first (domain/model/revision.ts, stillHoldsOrder): a lower one before what it builds on.
  return [...new Set(held)].sort((a, b) => (byId.get(b)?.createdAt ?? 0) - (byId.get(a)?.createdAt ?? 0))
})

/**
 * Confirms each, in the order checkStillHolds gave, by the writer for the revision's reason. Each
 * Confirmation's id derives from the revision's fact id and the dependent's, so a retry of the save
 * answers the confirmations that landed. Returns the facts as they stand after, and the last stamp.
 * (A confirmation's invalid_input, a request_id reused elsewhere, cannot happen: its id is derived.)
 */
export const confirmStillHolds = Effect.fn("relay/factStore/confirmStillHolds")(function*(
  db: GraphDatabase["Type"],
  now: number,
  revision: { readonly factId: string; readonly reason: string; readonly writtenBy: string },
  ordered: ReadonlyArray<string>
) {
  const confirmed = (yield* Effect.forEach(ordered, (factId) =>
    confirm(db, now, {
      callId: stillHoldsConfirmationId(revision.factId, factId),
      factId,
      reason: revision.reason,
      confirmedBy: revision.writtenBy
    }).pipe(
      Effect.map(Option.some),
      // The revision has landed: one decided since the check, or with too much below it to recompute,
      // stays stale and is listed so (its relay_confirm_fact answers why), not an error after a write.
      Effect.catchTag("InvalidResolution", () => Effect.succeed(Option.none()))
    ))).flatMap((c) => Option.isSome(c) ? [c.value] : [])
  return {
    facts: confirmed.map((c): Fact => c.fact),
    until: confirmed.reduce((m, c) => Math.max(m, c.createdAt), 0)
  }
})
