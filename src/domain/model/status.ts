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

/** Every stamp of a decision or retraction on each fact (unstamped: always, -Infinity). */
export const invalidations = (model: GraphModel): Map<string, Array<number>> => {
  const out = new Map<string, Array<number>>()
  const note = (id: string, at: number | undefined) => out.set(id, [...(out.get(id) ?? []), at ?? -Infinity])
  for (const s of model.supersedes) note(s.loser, s.createdAt)
  for (const r of model.retractions ?? []) note(r.fact, r.createdAt)
  return out
}

/**
 * The stamps that make a fact stale: each decision or retraction on an ancestor, unless a fact
 * between that ancestor (excluded) and this fact (included) was confirmed after it.
 */
export const staleReasons = (model: GraphModel, id: string): Array<number> => {
  const invalidated = invalidations(model)
  const confirmed = new Map<string, number>()
  for (const c of model.confirmations ?? []) {
    confirmed.set(c.fact, Math.max(confirmed.get(c.fact) ?? -Infinity, c.createdAt))
  }
  const out: Array<number> = []
  // The latest confirmation met walking up so far: it covers whatever was stamped before it.
  let shield = confirmed.get(id) ?? -Infinity
  for (const a of ancestors(model, id)) {
    for (const at of invalidated.get(a) ?? []) if (at >= shield) out.push(at)
    shield = Math.max(shield, confirmed.get(a) ?? -Infinity)
  }
  return out
}

/** Stale: some ancestor is superseded or retracted, and no confirmation since covers it. */
export const isStale = (model: GraphModel, id: string): boolean => staleReasons(model, id).length > 0

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
 * decisions, compatible records, retractions, confirmations); every rule then applies to what is left.
 */
export const asOf = (model: GraphModel, time: number): GraphModel => {
  const seen = (x: { readonly createdAt?: number }) => x.createdAt === undefined || x.createdAt <= time
  return {
    facts: model.facts.filter(seen),
    supersedes: model.supersedes.filter(seen),
    compatible: (model.compatible ?? []).filter(seen),
    retractions: (model.retractions ?? []).filter(seen),
    confirmations: (model.confirmations ?? []).filter(seen)
  }
}

/** relay_get_current_state: the facts of the given statuses (null: all), newest first. */
export const currentState = (model: GraphModel, statuses: ReadonlyArray<Status> | null): Array<string> =>
  [...model.facts]
    .sort((x, y) => y.createdAt - x.createdAt)
    .filter((f) => statuses === null || statuses.includes(status(model, f.id)))
    .map((f) => f.id)
