/**
 * The contract's rules that the store itself applies: the messages a refused resolution or
 * compatible record answers with, how much of a fork a reply shows, and a briefing's window and
 * cursor. The pure model of the whole graph, which the property tests hold the Cypher to, is
 * src/domain/model/.
 */

export type CompatibleRule = "same_fact" | "fact_not_found" | "not_siblings" | "already_superseded"

/** What a client is told when a compatible record breaks a rule. */
export const compatibleMessage = {
  same_fact: "fact_ids must be different facts",
  not_siblings: "fact_ids must be siblings (children of the same parent) to be recorded as compatible",
  already_superseded:
    "one of fact_ids already supersedes another (directly or through other decisions); a compatible record cannot undo a decision"
} as const satisfies Partial<Record<CompatibleRule, string>>

export type ResolutionRule =
  | "winner_is_loser"
  | "winner_not_found"
  | "loser_not_found"
  | "supersedes_cycle"
  | "builds_on_each_other"

/** What a client is told when a resolution breaks a rule; the store answers with exactly these. */
export const resolutionMessage = {
  winner_is_loser: "winner_fact_id and loser_fact_id must be different facts",
  supersedes_cycle:
    "the loser already supersedes the winner (directly or through other decisions); a decision cannot be reversed into a cycle: " +
    "to overturn it, save a new fact saying what now holds and have that fact supersede the old winner",
  builds_on_each_other:
    "one fact builds on the other (BUILDS_ON ancestry), so neither can supersede the other. To replace a fact, " +
    "call relay_save_fact with the new content, supersedes: <the old fact's id> and reason: it is saved beside the " +
    "old fact and supersedes it in one write (then relay_retract_fact a copy saved under it by mistake)"
} as const satisfies Partial<Record<ResolutionRule, string>>

/** What a refused revision (relay_save_fact with supersedes) answers; see domain/model/revision.ts. */
export const revisionMessage = {
  parent_builds_on_revised: "parent_fact_id: is the fact named in supersedes or builds on it; a revision cannot " +
    "build on what it overturns (leave parent_fact_id out to save it beside that fact)",
  builds_on_revised: "builds_on: names the fact in supersedes or a fact that builds on it; a revision cannot " +
    "build on what it overturns (leave builds_on out to save it beside that fact)",
  reason_needed: "reason: required with supersedes",
  reason_alone: "reason: only taken with supersedes",
  still_holds_alone: "still_holds: only taken with supersedes (to confirm a stale fact, use relay_confirm_fact)"
} as const

/** How many dependents a revision may name as still holding (still_holds): each is one confirmation. */
export const stillHoldsMax = 8

/**
 * Why a fact named in still_holds (`still_holds.<i>`) is refused, nothing written: it is not a
 * dependent the revision makes stale (domain/model/revision.ts, stillHoldsViolation).
 */
export const stillHoldsMessage = (where: string) =>
  `${where}: not a fact this revision makes stale: name current facts that build on the fact in supersedes ` +
  "(one already stale: relay_confirm_fact)"

/**
 * How many facts with several parents may lie on one line of facts, one above another (the model's
 * `mergeDepth`): a walk down unrolls that many rounds and reads a fact at most that many times, so a
 * merge past it is refused.
 */
export const mergeDepthCap = 4

/** The refusals of `builds_on` (several parents, domain/model/graph.ts). */
export const buildsOnMessage = {
  both: "builds_on: give either parent_fact_id (one fact) or builds_on (up to 8), not both",
  too_deep: `builds_on: ${mergeDepthCap} facts with several parents already lie one above another on this line; ` +
    "save it on its first fact only (parent_fact_id), or on facts below fewer merges"
} as const

/** How many children of one forked parent a page of conflicts shows; the rest follow on the next page. */
export const conflictChildrenShown = 20

/** How many differing siblings a save shows (the most recent); it counts them all. */
export const forkSiblingsShown = 20

/** How many siblings a choice's save names that it was compared with and does not fork with (the most recent). */
export const comparedShown = 5

/** How many siblings a save may name in `contradicts`. */
export const contradictsMax = 8

/** How far back the first briefing of a name reaches. */
export const firstBriefingSpan = 7 * 24 * 60 * 60 * 1000

/**
 * The briefing window `since < created_at <= asOf`. Without `since` it starts at the name's cursor
 * (where its last briefing ended), or, for a name's first briefing, `firstBriefingSpan` before asOf.
 * A cursor never starts past asOf (none is set beyond a fence; an empty window is the safe answer).
 */
export const briefingWindow = (
  asOf: number,
  since: number | null,
  cursor: number | null = null
): { since: number; asOf: number } => ({
  since: since ?? Math.min(cursor ?? asOf - firstBriefingSpan, asOf),
  asOf
})

/**
 * Where a name's cursor may move after a page of an automatic briefing: every fact, decision and
 * retraction by others stamped at or before the lowest of the list positions has been served (each
 * list is read in stamp order, and stamps never repeat). Conflicts are a snapshot, not a window, so
 * they do not count. The stored cursor is the max of what every session of the name served, so it
 * only moves forward.
 */
export const briefingServed = (
  position: { readonly factAfter: number; readonly decisionAfter: number; readonly retractionAfter: number }
): number => Math.min(position.factAfter, position.decisionAfter, position.retractionAfter)

/**
 * How many superseded, retracted or confirmed facts may lie below a confirmed fact: its one statement
 * walks the subtree once for each (layers/factStore/confirm.ts).
 */
export const confirmSpecialsCap = 64

/**
 * The most rows one confirmation may recompute past its own walk: the facts below it times the
 * decided or confirmed facts among them, since the statement walks the subtree once for each. 63
 * decisions in a 3,430-fact subtree (216,000 rows) took 821 ms of the writer (issue 40); past the cap
 * the confirmation is refused like too many specials (confirm facts further down), so what runs is
 * one walk of the subtree, as a decision's marking is, plus at most this many rows.
 */
export const confirmWorkCap = 32_000

/** What a refused relay_confirm_fact answers; see domain/model/confirm.ts. */
export const confirmMessage = {
  not_stale: "fact_id: the fact is not stale now (nothing it builds on was superseded or retracted since it was " +
    "saved or confirmed), so there is nothing to confirm",
  decided: "fact_id: the fact is itself superseded or retracted; a confirmation only says that a stale fact " +
    "still holds (to restore it, save it again)",
  too_many: `fact_id: too much builds on this one for one confirmation to recompute (over ${confirmSpecialsCap} ` +
    `superseded, retracted or confirmed facts below it, or over ${confirmWorkCap} facts below it counted once for ` +
    "each of those); nothing was written: confirm the facts further down that still hold"
} as const
