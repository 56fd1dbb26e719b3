import { byId, type GraphModel, type ModelFact, parentsOf } from "./graph.js"
import { ancestors, asOf, isStale, status } from "./status.js"
import { impact } from "./walks.js"

/**
 * A revision: relay_save_fact with `supersedes`. One write saves the new fact beside the old one
 * (under the old one's parent unless a parent is given) and records that the new fact supersedes
 * the old one, both stamped alike, so no reader ever sees one without the other.
 */

/** Why a revision is refused: the fact to supersede or the given parent is missing, or the parent builds on the old fact. */
export type RevisionRule = "supersedes_not_found" | "parent_not_found" | "parent_builds_on_revised"

/** The parent the new fact goes under: the one given, else the revised fact's first (null: a root). */
export const revisionParent = (
  model: GraphModel,
  revised: string,
  parentId: string | null | undefined
): string | null => parentId ?? byId(model).get(revised)?.parentId ?? null

/** What the new fact builds on: the facts given, else every fact the revised one builds on (none: a root). */
export const revisionParents = (
  model: GraphModel,
  revised: string,
  given: ReadonlyArray<string> | null | undefined
): ReadonlyArray<string> => given ?? parentsOf(byId(model).get(revised))

/** Whether the revision may be written now; undefined when it may. */
export const revisionViolation = (
  model: GraphModel,
  revised: string,
  parentId: string | ReadonlyArray<string> | null | undefined
): RevisionRule | undefined => {
  const facts = byId(model)
  if (!facts.has(revised)) return "supersedes_not_found"
  const given = parentId === null || parentId === undefined ? [] : typeof parentId === "string" ? [parentId] : parentId
  if (given.some((p) => !facts.has(p))) return "parent_not_found"
  // Under the old fact (or what builds on it) the new one would build on what it overturns.
  if (given.some((p) => p === revised || ancestors(model, p).includes(revised))) return "parent_builds_on_revised"
  return undefined
}

/** The graph after the revision: the new fact and its SUPERSEDES record, with the fact's stamp. */
export const revise = (
  model: GraphModel,
  fact: ModelFact,
  revised: string,
  resolvedBy?: string
): GraphModel => ({
  ...model,
  facts: [...model.facts, fact],
  supersedes: [...model.supersedes, {
    winner: fact.id,
    loser: revised,
    createdAt: fact.createdAt,
    ...(resolvedBy === undefined ? {} : { resolvedBy })
  }]
})

/**
 * What the decision stamped `stamp` made stale: the facts that build on `loser` (in impact order),
 * that existed then, were not stale just before it and are stale after it. A fact already stale
 * (something above it was superseded or retracted earlier) is not listed, nor what was saved later.
 */
export const madeStale = (
  model: GraphModel,
  loser: string,
  stamp: number,
  until = stamp
): Array<{ id: string; distance: number }> => {
  const before = asOf(model, stamp - 1)
  const after = asOf(model, stamp)
  // A revision's still_holds confirmations, stamped just after it (up to `until`), take theirs back.
  const held = asOf(model, until)
  return impact(after, loser).filter((d) => isStale(after, d.id) && !isStale(before, d.id) && isStale(held, d.id))
}

/**
 * A revision's `still_holds`: each must be a dependent the revision makes stale, one that builds on
 * the revised fact and is current now (neither stale nor decided). The first that is not, as its
 * index; undefined when all are.
 */
export const stillHoldsViolation = (
  model: GraphModel,
  revised: string,
  held: ReadonlyArray<string>
): number | undefined => {
  const below = new Set(impact(model, revised).map((d) => d.id))
  const index = held.findIndex((id) => !below.has(id) || status(model, id) !== "active")
  return index < 0 ? undefined : index
}

/**
 * The order a revision confirms its `still_holds` in: the latest saved first, so what builds on
 * another named one is confirmed before it (a confirmation of the upper one would make the lower
 * one current, leaving it nothing to confirm). Each once.
 */
export const stillHoldsOrder = (model: GraphModel, held: ReadonlyArray<string>): Array<string> => {
  const facts = byId(model)
  return [...new Set(held)].sort((a, b) => (facts.get(b)?.createdAt ?? 0) - (facts.get(a)?.createdAt ?? 0))
}

/** A fact's status just after the decision stamped `stamp` (what a revision's reply shows). */
export const statusAt = (model: GraphModel, id: string, stamp: number) => status(asOf(model, stamp), id)
