/**
 * The facts below one fact, placed in one pass over its BUILDS_ON subtree: each with its distance,
 * in impact order (distance, then age). The database sends only the subtree's edges (node ids,
 * stamps, the child's status flags, staleness as stored: layers/factStore/staleness.ts); paths are
 * never materialised, which made impact quadratic in the depth.
 */
export interface SubtreeEdge {
  /** Node ids of the graph, not fact ids: small and cheap to send. */
  readonly parent: number
  readonly child: number
  readonly createdAt: number
  readonly superseded: boolean
  readonly retracted: boolean
  readonly stale: boolean
}

export interface Placed {
  readonly node: number
  readonly parent: number
  readonly distance: number
  readonly createdAt: number
  readonly superseded: boolean
  readonly retracted: boolean
  readonly stale: boolean
}

/** The impact order, also the cursor's place (chainPaging.ts ImpactCursor): distance, created_at, node. */
export interface ImpactKey {
  readonly distance: number
  readonly createdAt: number
  /** The node id: Relay's stamps never tie, bulk-loaded graphs may. */
  readonly node: number
}

export const impactKey = (p: ImpactKey): ImpactKey => ({ distance: p.distance, createdAt: p.createdAt, node: p.node })

/** Negative when `a` comes first in impact order. */
export const impactOrder = (a: ImpactKey, b: ImpactKey): number =>
  a.distance - b.distance || a.createdAt - b.createdAt || a.node - b.node

/** One BFS from the root gives every dependent its distance (its nearest path, in a tree its only one). */
export const placeDescendants = (root: number, edges: ReadonlyArray<SubtreeEdge>): Array<Placed> => {
  const children = new Map<number, Array<SubtreeEdge>>()
  for (const e of edges) {
    const list = children.get(e.parent)
    if (list === undefined) children.set(e.parent, [e])
    else list.push(e)
  }
  const out: Array<Placed> = []
  const seen = new Set<number>([root])
  let frontier: Array<number> = [root]
  for (let distance = 1; frontier.length > 0; distance++) {
    const next: Array<number> = []
    for (const at of frontier) {
      for (const e of children.get(at) ?? []) {
        if (seen.has(e.child)) continue
        seen.add(e.child)
        out.push({
          node: e.child,
          parent: e.parent,
          distance,
          createdAt: e.createdAt,
          superseded: e.superseded,
          retracted: e.retracted,
          stale: e.stale
        })
        next.push(e.child)
      }
    }
    frontier = next
  }
  return out.sort(impactOrder)
}

/** The placed facts strictly after the cursor, at most `take` of them. */
export const after = (placed: ReadonlyArray<Placed>, cursor: ImpactKey | null, take: number): Array<Placed> => {
  if (cursor === null) return placed.slice(0, take)
  // Binary search for the first key past the cursor: placed is sorted by the same key.
  let lo = 0
  let hi = placed.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (impactOrder(placed[mid]!, cursor) <= 0) lo = mid + 1
    else hi = mid
  }
  return placed.slice(lo, lo + take)
}
