import { Effect, Schema } from "effect"
import { currentBudget, fit, replyCost } from "../../domain/paging.js"
import { briefingServed, briefingWindow } from "../../domain/rules.js"
import { Stamp } from "../../domain/time.js"
import type { Briefing, BriefingAfter, BriefingOptions, ConflictsAfter } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { clockBind, clockVars, clockWrite, fenceStamp } from "../database/clock.js"
import { DecisionRow, WithdrawalRow } from "./briefingRows.js"
import { conflictsPage, readConflicts } from "./conflicts.js"
import { importedNotes } from "./importedNotes.js"
import { FactColumn, factMap, stampOf } from "./projection.js"
import { threadMembers } from "./threadScope.js"

/** The later of two stamps, either of which may be null. */
export const furthest = (a: string, b: string) => `CASE WHEN ${b} IS NULL OR ${a} > ${b} THEN ${a} ELSE ${b} END`

/**
 * The fence: as_of is the later of the Clock's now and the graph's last stamp, and it becomes the
 * last stamp, so every write that commits after this statement is stamped strictly after as_of.
 * That is what lets a caller chain briefings (since = previous as_of) and see everything once.
 */
export const fenceQuery = `${clockBind([])}` +
  `WITH ${clockVars}, ${fenceStamp} AS asOf ` +
  `${clockWrite({ last: "asOf" })}RETURN asOf`

/**
 * The fence of an automatic briefing, with the reader's cursor read in the same statement: a cursor
 * is only ever set to a position at or before some earlier fence, so it is read here at or before
 * this as_of, and (as writes run one at a time) no other session can move it in between.
 */
export const trackedFenceQuery = `${clockBind([])}` +
  `WITH ${clockVars}, ${fenceStamp} AS asOf ` +
  clockWrite({ last: "asOf" }) +
  // The edge by a pattern of its own, not from `c`: an OPTIONAL MATCH from a null node has crashed
  // FalkorDB 4.16 (a name that never briefed has none).
  `WITH asOf OPTIONAL MATCH (c:BriefingCursor {name: $reader}) ` +
  `WITH asOf, c OPTIONAL MATCH (ce:BriefingCursor {name: $reader})-[cr:READ_TO]->(ce) ` +
  `RETURN asOf, ${furthest("cr.as_of", "c.as_of")} AS cursor`

/**
 * Moves the reader's cursor to what a page served, never back: two sessions of one name briefing at
 * once each serve from where the cursor stood, and the cursor keeps the furthest of them (everything
 * at or before it was served to some session of that name). One node per name, made by MERGE; the
 * position is on its READ_TO self-loop, not the node: in FalkorDB 4.16 the first node update after
 * a save costs in proportion to the graph (docs/design/performance.md), and a briefing comes after
 * saves. A cursor a Relay before this kept on the node is read as the later of the two.
 */
export const advanceCursorQuery = `MERGE (c:BriefingCursor {name: $reader}) MERGE (c)-[cr:READ_TO]->(c) ` +
  `WITH cr, ${furthest("cr.as_of", "c.as_of")} AS was ` +
  `SET cr.as_of = ${furthest("$served", "was")}`

/**
 * From `$after` (the window's since, or the last fact of the previous page) to the fence, oldest
 * first; a retracted fact is left out (filtered before the LIMIT, so pages stay exact).
 */
export const newFactsQuery = `MATCH (f:Fact) WHERE f.created_at > $after AND f.created_at <= $asOf ` +
  `AND f.written_by <> $reader AND indegree(f, 'RETRACTS') = 0 ` +
  `WITH f ORDER BY f.created_at LIMIT $limit RETURN ${factMap("f")} AS fact`

/** Unlabelled ends (only facts carry SUPERSEDES), so the planner starts from the edge index on created_at. */
export const decisionsQuery = `MATCH (w)-[r:SUPERSEDES]->(l) ` +
  `WHERE r.created_at > $after AND r.created_at <= $asOf AND r.resolved_by <> $reader ` +
  `WITH w, r, l ORDER BY r.created_at LIMIT $limit ` +
  `RETURN ${factMap("w")} AS winner, ${factMap("l")} AS loser, r.reason AS reason, ` +
  `r.resolved_by AS resolved_by, r.created_at AS created_at`

/**
 * From the RETRACTS edge's index on created_at, as decisions start from SUPERSEDES'. The writer is
 * on the Retraction node, read behind a WITH: a test on `r` in the MATCH's WHERE made FalkorDB 4.16
 * scan every node for `r` first (16 ms a briefing at 100k facts, with no retraction at all).
 */
export const retractionsQuery = `MATCH (r)-[x:RETRACTS]->(f) ` +
  `WHERE x.created_at > $after AND x.created_at <= $asOf ` +
  `WITH r, x, f, r.retracted_by AS writer WHERE writer <> $reader ` +
  `WITH r, x, f, writer ORDER BY x.created_at LIMIT $limit ` +
  `RETURN ${factMap("f")} AS fact, r.reason AS reason, writer AS retracted_by, x.created_at AS created_at`

/**
 * Scoped to a thread (`$thread`, its node ids, threadScope.ts): the same three lists, each fact found
 * by its id, so the cost is the thread's size. A decision belongs to the thread of its loser.
 */
const scopedFacts = (v: string) => `UNWIND $thread AS tid MATCH (${v}) WHERE id(${v}) = tid `

/** Unlabelled, so the id seek stays the plan (see currentState.ts' threadRecentQuery). */
export const threadNewFactsQuery = newFactsQuery.replace("MATCH (f:Fact) WHERE ", `${scopedFacts("f")}AND `)

export const threadDecisionsQuery = `${scopedFacts("l")}MATCH (w)-[r:SUPERSEDES]->(l) ` +
  decisionsQuery.slice(decisionsQuery.indexOf("WHERE "))

export const threadRetractionsQuery = `${scopedFacts("f")}MATCH (r)-[x:RETRACTS]->(f) ` +
  retractionsQuery.slice(retractionsQuery.indexOf("WHERE "))

const FenceRow = Schema.Struct({
  asOf: Stamp,
  /** Only the tracked fence reads it: null for a name that never briefed. */
  cursor: Schema.optional(Schema.NullOr(Stamp))
})

/** The conflicts position that has nothing left: no key is below 0. */
const conflictsDone = (asOf: number): ConflictsAfter => ({ snap: asOf, key: 0, parent: 0, child: 0 })

/**
 * A briefing is one window (since, as_of], read in pages. The first page fences as_of; every next
 * page carries the window and where each list stopped (BriefingAfter) and makes no new fence, so
 * pages only continue the window, and chaining as_of afterwards still sees everything once. Each
 * list reads `limit` + 1 by keyset on its own created_at; the page then spends one reply budget on
 * decisions, then retractions, then open conflicts (as of as_of, see conflicts.ts), then new facts,
 * so a list may be cut, even to nothing, and continue on the next page; the facts are cut first.
 *
 * An automatic briefing (no `since`) starts at the reader's BriefingCursor, and every page says how
 * to move it (`advance`) to what that page served, not at once to as_of: a session that stops paging leaves the cursor
 * where it stopped, so its next automatic briefing repeats at most part of a page and skips nothing.
 */
export const briefing = Effect.fn("relay/factStore/briefing")(function*(
  db: GraphDatabase["Type"],
  now: number,
  options: BriefingOptions
) {
  const { limit, reader } = options
  const thread = options.thread ?? null
  // A briefing of one thread starts where the name's cursor stands (without `since`) but moves it
  // not: it served one thread, not everything since.
  const tracked = options.since === null && thread === null
  const fromCursor = options.since === null
  const at: BriefingAfter = options.after ?? (yield* Effect.map(
    fromCursor
      ? db.write(trackedFenceQuery, { now, reader }, FenceRow)
      : db.write(fenceQuery, { now }, FenceRow),
    (fence) => {
      const { asOf, since } = briefingWindow(fence[0]?.asOf ?? now, options.since, fence[0]?.cursor ?? null)
      return {
        since,
        asOf,
        factAfter: since,
        decisionAfter: since,
        retractionAfter: since,
        conflicts: { snap: asOf, key: Number.MAX_SAFE_INTEGER, parent: Number.MAX_SAFE_INTEGER, child: 0 },
        tracked
      }
    }
  ))
  const { asOf } = at
  const members = thread === null ? null : yield* threadMembers(db, thread, asOf)
  const conflictsRequest = { limit, after: at.conflicts, thread }
  const scoped = members !== null
  const [factRows, decisionRows, withdrawalRows, conflictItems] = yield* Effect.all([
    at.factAfter >= asOf ?
      Effect.succeed([]) :
      db.read(scoped ? threadNewFactsQuery : newFactsQuery, {
        after: at.factAfter,
        asOf,
        reader,
        limit: limit + 1,
        thread: members
      }, FactColumn),
    at.decisionAfter >= asOf ?
      Effect.succeed([]) :
      db.read(scoped ? threadDecisionsQuery : decisionsQuery, {
        after: at.decisionAfter,
        asOf,
        reader,
        limit: limit + 1,
        thread: members
      }, DecisionRow),
    at.retractionAfter >= asOf ?
      Effect.succeed([]) :
      db.read(scoped ? threadRetractionsQuery : retractionsQuery, {
        after: at.retractionAfter,
        asOf,
        reader,
        limit: limit + 1,
        thread: members
      }, WithdrawalRow),
    at.conflicts.key === 0 ? Effect.succeed([]) : readConflicts(db, conflictsRequest)
  ], { concurrency: "unbounded" })

  let left = yield* currentBudget()
  let shown = 0
  /** The first `limit` rows that fit what is left of the budget (at least one if nothing is shown yet). */
  const cut = <A>(rows: ReadonlyArray<A>): ReadonlyArray<A> => {
    const candidates = rows.slice(0, limit)
    const { count, used } = fit(candidates, Math.max(left, 0), shown === 0 ? 1 : 0)
    left -= used
    shown += count
    return candidates.slice(0, count)
  }
  // What a reader must not miss comes first (issue 41): decisions, retractions and open conflicts
  // spend the budget before new facts, so a small max_tokens cuts facts, never a decision.
  const facts = factRows.map((r) => r.fact)
  const decisions = cut(decisionRows)
  const retractions = cut(withdrawalRows)
  const conflicts = conflictsPage(conflictItems, conflictsRequest, Math.max(left, 0), shown === 0 ? 1 : 0)
  for (const c of conflicts.conflicts) {
    left -= replyCost(c)
    shown += 1
  }
  const newFacts = cut(facts)

  // Where each list stops: after its last row shown, or at as_of when it was shown to its end.
  const stop = (rows: ReadonlyArray<{ created_at: string }>, kept: number, from: number) =>
    kept === rows.length ? asOf : kept === 0 ? from : stampOf(rows[kept - 1]!)
  const next: BriefingAfter = {
    since: at.since,
    asOf,
    factAfter: stop(facts, newFacts.length, at.factAfter),
    decisionAfter: stop(decisionRows, decisions.length, at.decisionAfter),
    retractionAfter: stop(withdrawalRows, retractions.length, at.retractionAfter),
    conflicts: conflicts.next ?? conflictsDone(asOf),
    tracked: at.tracked
  }
  // Not written here: the edge runs it once the page's reply is ready to send (a page that fails
  // before, on its size or anything else, moves nothing). The first page always has one (even an
  // empty window), so a name's first briefing makes its cursor.
  const served = briefingServed(next)
  const advance = at.tracked && (options.after === null || served > briefingServed(at))
    ? Effect.asVoid(db.write(advanceCursorQuery, { reader, served }))
    : null
  const done = next.factAfter >= asOf && next.decisionAfter >= asOf && next.retractionAfter >= asOf &&
    next.conflicts.key === 0
  const result: Briefing = {
    asOf,
    since: at.since,
    newFacts,
    decisions,
    retractions,
    openConflicts: conflicts.conflicts,
    // An import's decisions, retractions and confirmations keep the file's stamps: told by when it was made.
    imported: options.after === null ? yield* importedNotes(db, at.since, asOf, limit) : [],
    next: done ? null : next,
    advance
  }
  return result
})
