import { byId, type GraphModel } from "./graph.js"
import { staleReasons } from "./status.js"

/**
 * What Relay stores on a fact so no read walks to the root (layers/factStore/staleness.ts keeps it):
 * the earliest stamp that makes it stale now (null: not stale). Without confirmations a fact is
 * stale as of `t` iff that stamp is at or before `t`, so one stamp answers every as_of; a decision
 * on x lowers it below x alone, and a child's is its parent's or the parent's own first decision or
 * retraction, whichever is earlier: that is what every write keeps. A confirmation raises it on
 * the confirmed fact and what builds on it, except through a merge already saved (that one stood on
 * more than the confirmed fact), and keeps what it was until then as a span of the past (staleness.ts).
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
 * The local rule (what check-db --verify checks): an unconfirmed fact's stamp is the earliest over
 * the facts it builds on of each one's own stamp and the first decision or retraction on it. Except
 * for a merge (two or more parents) saved before a confirmation of a fact above it: that
 * confirmation may have raised its parents' stamps without vouching for the merge, so the merge's
 * stamp is at or before this one, not always equal to it. A confirmed fact's depends on stamps above
 * it the parents' minimums hide: on one parent it is no earlier than this, a merge's may be.
 */
export const inheritedStaleSince = (model: GraphModel, parentIds: ReadonlyArray<string>): number | null => {
  const facts = byId(model)
  const invalidated = invalidatedAt(model)
  const stamps = parentIds.filter((p) => facts.has(p)).flatMap((p) => {
    const own = invalidated.get(p)
    const above = staleSince(model, p)
    return [...(own === undefined ? [] : [own]), ...(above === null ? [] : [above])]
  })
  return stamps.length === 0 ? null : Math.min(...stamps)
}
