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

/** The impact order, also the cursor's key: (distance, created_at, node). */
export type ImpactKey = readonly [number, number, number]

export const impactKey = (p: Placed): ImpactKey => [p.distance, p.createdAt, p.node]

const compareKeys = (a: ImpactKey, b: ImpactKey): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]

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
  return out.sort((a, b) => compareKeys(impactKey(a), impactKey(b)))
}

/** The placed facts strictly after the cursor, at most `take` of them. */
export const after = (placed: ReadonlyArray<Placed>, cursor: ImpactKey | null, take: number): Array<Placed> => {
  if (cursor === null) return placed.slice(0, take)
  // Binary search for the first key past the cursor: placed is sorted by the same key.
  let lo = 0
  let hi = placed.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (compareKeys(impactKey(placed[mid]!), cursor) <= 0) lo = mid + 1
    else hi = mid
  }
  return placed.slice(lo, lo + take)
}
