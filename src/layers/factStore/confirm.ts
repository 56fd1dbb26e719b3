import { Effect, Schema } from "effect"
import { InvalidInput, InvalidResolution, noFactWithId } from "../../domain/errors.js"
import { requestIdMessage } from "../../domain/requestId.js"
import { confirmMessage, confirmSpecialsCap, confirmWorkCap } from "../../domain/rules.js"
import { Stamp } from "../../domain/time.js"
import type { Confirmation, Confirmed } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { clockVars, clockWrite } from "../database/clock.js"
import { FactFromRow, factMap, stampClause } from "./projection.js"
import { neverStale, staleAt, staleNow } from "./staleness.js"

/**
 * relay_confirm_fact in one statement (domain/model/confirm.ts): a Confirmation on a stale fact,
 * `(:Confirmation {id, reason, confirmed_by, created_at})-[:CONFIRMS {created_at}]->(f)`, and every
 * stored stamp at or below f recomputed, each changed one keeping the span it closes (staleness.ts).
 *
 * The recompute: f covers everything above it (it was all stamped before now), so a fact d below f
 * is stale from the earliest stamp s of a decision or retraction on a fact u between f (included)
 * and d (excluded), unless a fact confirmed after s lies between u (excluded) and d (included).
 * Only decided or confirmed facts (`specials`) can change that, so each special's subtree is walked
 * once (a MATCH: linear, where a bound path is built whole, 2.9 s on a 20,000-deep chain) and each
 * fact gathers its specials. A fact is stamped after its parent, so a fact's specials sorted by
 * created_at are its chain from f down, and one pass from the nearest up carries the latest
 * confirmation met, as domain/model/status.ts walks. The cost is the subtree times its specials,
 * so a confirmation with more than `confirmSpecialsCap` of them below it, or whose subtree times its
 * specials passes `confirmWorkCap`, is refused, nothing written: the refusal walks the subtree once.
 * What runs is then one walk of the subtree (as a decision's marking) plus at most the cap in rows.
 */
const specialsCap = confirmSpecialsCap

/**
 * Whether the fact bound as `d`, in the BUILDS_ON subtree of `f`, is reached from f through no
 * merge (a fact on several parents) below f: then it has one path up, through f, and a confirmation
 * of f covers it. A confirmation does not vouch through a merge already saved (domain/model/status.ts):
 * a merge and what is below it keep their stamps. Each fact stores its nearest merge at or above it
 * on its first-parent chain (`merge_of`, saveMerge.ts), so this is one comparison, no path built.
 */
const sameMerge = (d: string, f: string) => `coalesce(${d}.merge_of, '') = coalesce(${f}.merge_of, '')`

const never = neverStale
const special = "indegree(x, 'SUPERSEDES') + indegree(x, 'RETRACTS') + indegree(x, 'CONFIRMS') > 0"
const ownStamps = "CASE WHEN a IS NULL THEN [] ELSE [(a)<-[a_t:SUPERSEDES|RETRACTS]-() | a_t.created_at] END"
const lastConfirmed = "CASE WHEN a IS NULL OR a = f THEN ts ELSE " +
  "reduce(a_m = -1, a_c IN [(a)<-[a_k:CONFIRMS]-() | a_k.created_at] | CASE WHEN a_c > a_m THEN a_c ELSE a_m END) END"
/** The later of the shield so far (d_acc[1]) and this special's confirmation. */
const shieldWith = "CASE WHEN ups[d_i][2] > d_acc[1] THEN ups[d_i][2] ELSE d_acc[1] END"
// ups: [created_at, stamps, confirmed] of each special at or above d, oldest first; d_acc: [stamp, shield].
const recomputed = `reduce(d_acc = [${never}, -1], d_i IN range(size(ups) - 1, 0, -1) | ` +
  `CASE WHEN ups[d_i][0] >= d.created_at THEN [d_acc[0], ${shieldWith}] ELSE ` +
  `[reduce(d_m = d_acc[0], d_s IN ups[d_i][1] | CASE WHEN d_s >= d_acc[1] AND d_s < d_m THEN d_s ELSE d_m END), ` +
  `${shieldWith}] END)[0]`

/**
 * The decided or confirmed facts strictly below `top` (none when top is null), as `inside`, with
 * `carry`. Read before anything is written, so a confirmation over too many is refused whole. When
 * the recompute would pass confirmWorkCap rows, `inside` is a list of nulls one longer than the cap,
 * so confirmGate refuses it (`tooMany`) as it does too many specials and nothing is unwound from it.
 */
export const specialsBelow = (carry: ReadonlyArray<string>): string =>
  `OPTIONAL MATCH (top)<-[:BUILDS_ON*1..]-(x) WHERE ${sameMerge("x", "top")} ` +
  `WITH ${
    carry.join(", ")
  }, collect(CASE WHEN x IS NULL THEN null WHEN ${special} THEN x END) AS inside, count(x) AS below ` +
  `WITH ${carry.join(", ")}, CASE WHEN size(inside) * below > ${confirmWorkCap} ` +
  `THEN [n IN range(0, ${specialsCap}) | null] ELSE inside END AS inside `

/**
 * After a Confirmation of f stamped `ts` was written (`make`; nothing when not): every stamp at or
 * below f recomputed from f and `inside`, each changed one keeping the span it closes. Goes on with
 * `carry` and `refreshed`, the facts below f it made current (not those superseded or retracted).
 */
export const recomputeBelow = (carry: ReadonlyArray<string>): string => {
  const keep = ["f", ...carry, "make", "ts"].join(", ")
  return `WITH ${keep}, CASE WHEN make THEN [f] + inside ELSE [null] END AS specials ` +
    `UNWIND specials AS a ` +
    `WITH ${keep}, a, ${ownStamps} AS stamps, ${lastConfirmed} AS confirmed ` +
    `OPTIONAL MATCH (a)<-[:BUILDS_ON*0..]-(d) WHERE ${sameMerge("d", "f")} ` +
    `WITH ${keep}, d, list.sort(collect([a.created_at, stamps, confirmed])) AS ups ` +
    `WITH ${keep}, d, ${recomputed} AS v, ${staleAt("d")} AS old ` +
    `WITH ${keep}, d, v, old, d IS NOT NULL AND v <> old AS changed ` +
    `FOREACH (_ IN CASE WHEN changed THEN [1] ELSE [] END | ` +
    `SET d.stale_spans = coalesce(d.stale_spans, []) + CASE WHEN old < ${never} THEN [old, ts] ELSE [] END, ` +
    `d.stale_at = v) ` +
    `WITH ${["f", ...carry, "make"].join(", ")}, sum(CASE WHEN changed AND d <> f AND v = ${never} AND ` +
    `indegree(d, 'SUPERSEDES') + indegree(d, 'RETRACTS') = 0 THEN 1 ELSE 0 END) AS refreshed `
}

/** Whether the fact bound as `f` may be confirmed: stale now, and neither superseded nor retracted. */
export const confirmable = (f: string): string =>
  `${staleNow(f)} AND indegree(${f}, 'SUPERSEDES') + indegree(${f}, 'RETRACTS') = 0`

/**
 * Whether the confirmation is written (`make`: a fact to confirm, as `top`, with few enough specials
 * `inside` it) or refused for too many (`tooMany`): the one place the cap is applied.
 */
export const confirmGate = `top IS NOT NULL AND size(inside) <= ${specialsCap} AS make, ` +
  `size(inside) > ${specialsCap} AS tooMany `

/** Creates the Confirmation of f stamped `ts` when `make`. */
export const createConfirmation = (idParam: string, byParam: string, reasonParam: string, then = "") =>
  `FOREACH (_ IN CASE WHEN make THEN [1] ELSE [] END | ` +
  `CREATE (:Confirmation {id: ${idParam}, reason: ${reasonParam}, confirmed_by: ${byParam}, created_at: ts})` +
  `-[:CONFIRMS {created_at: ts}]->(f)${then}) `

export const confirmQuery = `MATCH (f:Fact {id: $factId}) ` +
  `OPTIONAL MATCH (f)<-[:CONFIRMS]-(mine:Confirmation {id: $id}) ` +
  // A request_id's id names one Confirmation: used on another fact, it is refused.
  `OPTIONAL MATCH (other:Confirmation {id: $id})-[:CONFIRMS]->(elsewhere:Fact) WHERE elsewhere <> f ` +
  `WITH f, mine, count(other) > 0 AS reused, ${confirmable("f")} AS allowed, ` +
  `indegree(f, 'SUPERSEDES') + indegree(f, 'RETRACTS') > 0 AS decided ` +
  `WITH f, mine, reused, decided, CASE WHEN mine IS NULL AND NOT reused AND allowed THEN f END AS top ` +
  specialsBelow(["f", "mine", "reused", "decided", "top"]) +
  `${stampClause(["f", "mine", "reused", "decided", "top", "inside"])} ` +
  `WITH f, mine, reused, decided, inside, ${clockVars}, ts, ` +
  confirmGate +
  createConfirmation("$id", "$confirmedBy", "$reason") +
  clockWrite({ last: "ts" }, "make") +
  recomputeBelow(["mine", "reused", "decided", "tooMany", "inside"]) +
  `OPTIONAL MATCH (f)<-[:CONFIRMS]-(c:Confirmation) ` +
  `WITH f, mine, reused, decided, tooMany, make, refreshed, c ORDER BY c.created_at DESC ` +
  `WITH f, reused, decided, tooMany, make, refreshed, coalesce(mine, head(collect(c))) AS c ` +
  `RETURN make, decided, reused, tooMany, c IS NOT NULL AND c.id = $id AS mine, refreshed, c.id AS id, ` +
  `c.reason AS reason, c.confirmed_by AS confirmed_by, c.created_at AS created_at, ${factMap("f")} AS fact`

const Row = Schema.Struct({
  make: Schema.Boolean,
  decided: Schema.Boolean,
  reused: Schema.Boolean,
  tooMany: Schema.Boolean,
  mine: Schema.Boolean,
  refreshed: Schema.Number,
  id: Schema.NullOr(Schema.String),
  reason: Schema.NullOr(Schema.String),
  confirmed_by: Schema.NullOr(Schema.String),
  created_at: Schema.NullOr(Stamp),
  fact: FactFromRow
})

export const confirm = Effect.fn("relay/factStore/confirm")(
  function*(db: GraphDatabase["Type"], now: number, c: Confirmation) {
    const rows = yield* db.write(confirmQuery, {
      factId: c.factId,
      id: c.callId,
      reason: c.reason,
      confirmedBy: c.confirmedBy,
      now
    }, Row)
    const row = rows[0]
    if (row === undefined) return yield* noFactWithId("fact_id", c.factId)
    // This call's (or its retry's) confirmation, or else the latest one when the fact is current already.
    const answered = row.make || row.mine
    if (row.reused) return yield* new InvalidInput({ message: requestIdMessage.confirmElsewhere })
    if (row.tooMany) return yield* new InvalidResolution({ message: confirmMessage.too_many })
    if (!answered && row.decided) return yield* new InvalidResolution({ message: confirmMessage.decided })
    if (row.id === null || row.reason === null || row.confirmed_by === null || row.created_at === null) {
      return yield* new InvalidResolution({ message: confirmMessage.not_stale })
    }
    if (row.mine && !row.make && row.reason !== c.reason) {
      return yield* new InvalidInput({ message: requestIdMessage.confirm })
    }
    const confirmed: Confirmed = {
      id: row.id,
      fact: row.fact,
      reason: row.reason,
      confirmedBy: row.confirmed_by,
      createdAt: row.created_at,
      alreadyConfirmed: !answered,
      refreshed: row.refreshed
    }
    return confirmed
  }
)
