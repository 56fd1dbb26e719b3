/**
 * The facts below one fact, placed in one pass over its BUILDS_ON subtree: each with its distance
 * and status, in impact order (distance, then age). The database sends only the subtree's edges
 * (node ids, stamps, whether superseded or retracted); paths are never materialised, which made impact
 * quadratic in the depth.
 */
export interface SubtreeEdge {
  /** Node ids of the graph, not fact ids: small and cheap to send. */
  readonly parent: number
  readonly child: number
  readonly createdAt: number
  readonly superseded: boolean
  readonly retracted: boolean
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

/**
 * `rootTainted`: the root is superseded, retracted or stale. A dependent is stale exactly when some
 * fact above it is superseded or retracted: the root or one of its ancestors (rootTainted), or a fact
 * between the root and it. So one BFS from the root carries "something above taints" down to every child.
 */
export const placeDescendants = (
  root: number,
  rootTainted: boolean,
  edges: ReadonlyArray<SubtreeEdge>
): Array<Placed> => {
  const children = new Map<number, Array<SubtreeEdge>>()
  for (const e of edges) {
    const list = children.get(e.parent)
    if (list === undefined) children.set(e.parent, [e])
    else list.push(e)
  }
  const out: Array<Placed> = []
  const seen = new Set<number>([root])
  let frontier: Array<{ node: number; tainted: boolean }> = [{ node: root, tainted: rootTainted }]
  for (let distance = 1; frontier.length > 0; distance++) {
    const next: Array<{ node: number; tainted: boolean }> = []
    for (const at of frontier) {
      for (const e of children.get(at.node) ?? []) {
        if (seen.has(e.child)) continue
        seen.add(e.child)
        out.push({
          node: e.child,
          parent: e.parent,
          distance,
          createdAt: e.createdAt,
          superseded: e.superseded,
          retracted: e.retracted,
          stale: at.tainted
        })
        next.push({ node: e.child, tainted: at.tainted || e.superseded || e.retracted })
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
