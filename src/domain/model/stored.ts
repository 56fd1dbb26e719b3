import { byId, type GraphModel } from "./graph.js"
import { staleReasons } from "./status.js"

/**
 * What Relay stores on a fact so no read walks to the root (layers/factStore/staleness.ts keeps it):
 * the earliest stamp that makes it stale now (null: not stale). Without confirmations a fact is
 * stale as of `t` iff that stamp is at or before `t`, so one stamp answers every as_of; a decision
 * on x lowers it below x alone, and a child's is its parent's or the parent's own first decision or
 * retraction, whichever is earlier: that is what every write keeps. A confirmation raises it below
 * the confirmed fact, and keeps what it was until then as a span of the past (staleness.ts).
 */
export const staleSince = (model: GraphModel, id: string): number | null => {
  const reasons = staleReasons(model, id)
  return reasons.length === 0 ? null : Math.min(...reasons)
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

/**
 * The local rule every stored stamp of an unconfirmed fact keeps (what check-db --verify checks): a
 * child's from its parent. A confirmed fact's depends on stamps above it the parent's minimum hides.
 */
export const inheritedStaleSince = (model: GraphModel, parentId: string): number | null => {
  const parent = byId(model).get(parentId)
  if (parent === undefined) return null
  const own = invalidatedAt(model).get(parentId)
  const above = staleSince(model, parentId)
  return own === undefined ? above : above === null ? own : Math.min(own, above)
}
