import { byId, type GraphModel, type Status } from "./graph.js"

/** A fact's status, and the memory as it stood at a time (as_of). */

export const supersededIds = (model: GraphModel): Set<string> => new Set(model.supersedes.map((r) => r.loser))

export const retractedIds = (model: GraphModel): Set<string> => new Set((model.retractions ?? []).map((r) => r.fact))

/** Ancestors through BUILDS_ON, nearest first. */
export const ancestors = (model: GraphModel, id: string): Array<string> => {
  const facts = byId(model)
  const out: Array<string> = []
  let parent = facts.get(id)?.parentId ?? null
  while (parent !== null && !out.includes(parent)) {
    out.push(parent)
    parent = facts.get(parent)?.parentId ?? null
  }
  return out
}

/** Stale: some ancestor is superseded or retracted. */
export const isStale = (model: GraphModel, id: string): boolean => {
  const superseded = supersededIds(model)
  const retracted = retractedIds(model)
  return ancestors(model, id).some((a) => superseded.has(a) || retracted.has(a))
}

/** Precedence: retracted > superseded > stale > active. */
export const status = (model: GraphModel, id: string): Status =>
  retractedIds(model).has(id)
    ? "retracted"
    : supersededIds(model).has(id)
    ? "superseded"
    : isStale(model, id)
    ? "stale"
    : "active"

/**
 * The memory as it stood at `time` (as_of): what was stamped after it is invisible (facts,
 * decisions, compatible records, retractions); every rule then applies to what is left as usual.
 */
export const asOf = (model: GraphModel, time: number): GraphModel => {
  const seen = (x: { readonly createdAt?: number }) => x.createdAt === undefined || x.createdAt <= time
  return {
    facts: model.facts.filter(seen),
    supersedes: model.supersedes.filter(seen),
    compatible: (model.compatible ?? []).filter(seen),
    retractions: (model.retractions ?? []).filter(seen)
  }
}

/** relay_get_current_state: the facts of the given statuses (null: all), newest first. */
export const currentState = (model: GraphModel, statuses: ReadonlyArray<Status> | null): Array<string> =>
  [...model.facts]
    .sort((x, y) => y.createdAt - x.createdAt)
    .filter((f) => statuses === null || statuses.includes(status(model, f.id)))
    .map((f) => f.id)
