import { byId, type GraphModel } from "./graph.js"
import { ancestors } from "./status.js"

/**
 * What Relay stores on a fact so no read walks to the root (layers/factStore/staleness.ts keeps it).
 * A fact is stale as of `t` iff some ancestor was superseded or retracted by `t`, so one stamp says
 * it for every `t`: the earliest decision or retraction on any ancestor (null: never stale). It only
 * ever goes down, a decision on x lowers it below x alone, and a child's is its parent's or the
 * parent's own first decision or retraction, whichever is earlier: that is what every write keeps.
 */
export const staleSince = (model: GraphModel, id: string): number | null => {
  const invalidated = invalidatedAt(model)
  let first: number | null = null
  for (const a of ancestors(model, id)) {
    const at = invalidated.get(a)
    if (at !== undefined && (first === null || at < first)) first = at
  }
  return first
}

/** Each superseded or retracted fact with the stamp of its first decision or retraction (unstamped: always). */
export const invalidatedAt = (model: GraphModel): Map<string, number> => {
  const out = new Map<string, number>()
  const note = (id: string, at: number | undefined) => {
    const t = at ?? Number.NEGATIVE_INFINITY
    const had = out.get(id)
    if (had === undefined || t < had) out.set(id, t)
  }
  for (const s of model.supersedes) note(s.loser, s.createdAt)
  for (const r of model.retractions ?? []) note(r.fact, r.createdAt)
  return out
}

/** The local rule every stored stamp keeps (what check-db --verify checks): a child's from its parent. */
export const inheritedStaleSince = (model: GraphModel, parentId: string): number | null => {
  const parent = byId(model).get(parentId)
  if (parent === undefined) return null
  const own = invalidatedAt(model).get(parentId)
  const above = staleSince(model, parentId)
  return own === undefined ? above : above === null ? own : Math.min(own, above)
}
