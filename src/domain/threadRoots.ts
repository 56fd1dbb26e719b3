/**
 * Threads and clusters from the memory's shape (facts numbered 0..n-1, `parent` each one's first
 * parent, -1 a root): the rule the stored form (layers/factStore/threadClusters.ts) keeps on write,
 * computed whole for the migration and check-db --verify. The same partition as
 * domain/model/clusters.ts: threads by first parents, joined into clusters by SUPERSEDES.
 */

/** Each fact's thread root (an index). A cycle (none in a graph Relay wrote) is cut at its repeat. */
export const rootsOf = (parent: Int32Array): Int32Array => {
  const root = new Int32Array(parent.length).fill(-1)
  const onPath = new Uint8Array(parent.length)
  const path: Array<number> = []
  for (let v = 0; v < parent.length; v++) {
    let at = v
    while (root[at] === -1 && parent[at]! >= 0 && onPath[at] === 0) {
      path.push(at)
      onPath[at] = 1
      at = parent[at]!
    }
    const r = root[at] !== -1 ? root[at]! : at
    root[at] = r
    for (const x of path) {
      root[x] = r
      onPath[x] = 0
    }
    path.length = 0
  }
  return root
}

export interface ClusterTally {
  /** The representative: the cluster's oldest root. */
  readonly rep: number
  readonly size: number
  readonly roots: number
  readonly first: number
  readonly last: number
  /** The stamps of its `kept` oldest facts, oldest first. */
  readonly firsts: ReadonlyArray<number>
  /** Those facts' indexes, in the same order. */
  readonly firstFacts: ReadonlyArray<number>
}

/**
 * Clusters over thread roots joined by the SUPERSEDES pairs ([winner, loser] indexes): each fact's
 * root, each root's cluster representative, and each cluster's tally.
 */
export const clusterTallies = (
  parent: Int32Array,
  createdAt: Float64Array,
  supersedes: ReadonlyArray<readonly [number, number]>,
  kept: number
) => {
  const root = rootsOf(parent)
  const up = new Int32Array(parent.length)
  for (let v = 0; v < up.length; v++) up[v] = v
  const find = (x: number): number => {
    let r = x
    while (up[r] !== r) r = up[r]!
    while (up[x] !== r) {
      const next = up[x]!
      up[x] = r
      x = next
    }
    return r
  }
  for (const [w, l] of supersedes) {
    const a = find(root[w]!)
    const b = find(root[l]!)
    if (a !== b) up[a] = b
  }
  const order = Array.from({ length: parent.length }, (_, v) => v).sort((a, b) => createdAt[a]! - createdAt[b]!)
  const byCluster = new Map<
    number,
    {
      rep: number
      size: number
      roots: number
      first: number
      last: number
      firsts: Array<number>
      firstFacts: Array<number>
    }
  >()
  for (const v of order) {
    const k = find(root[v]!)
    const at = createdAt[v]!
    const t = byCluster.get(k) ?? { rep: v, size: 0, roots: 0, first: at, last: at, firsts: [], firstFacts: [] }
    t.size++
    if (root[v] === v) t.roots++
    t.last = at
    if (t.firsts.length < kept) {
      t.firsts.push(at)
      t.firstFacts.push(v)
    }
    byCluster.set(k, t)
  }
  // Each root's representative: the oldest root of its cluster (the first fact met in stamp order is a root).
  const repOf = new Int32Array(parent.length).fill(-1)
  for (let v = 0; v < parent.length; v++) if (root[v] === v) repOf[v] = byCluster.get(find(v))!.rep
  const tallies: Array<ClusterTally> = [...byCluster.values()]
  return { root, repOf, tallies }
}
