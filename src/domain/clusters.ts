import { namedCursor } from "./paging.js"

/**
 * How much of the cluster list one answer carries. Left unbounded, relay_get_clusters at 100,000
 * facts would answer ~50 MB, more than MCP clients read; 2,000 facts is about 1 MB. A graph of up
 * to this many facts always gets the contract's whole answer.
 */
export const clusterFactBudget = 2000

/**
 * relay_get_clusters' cursor: the last cluster shown (its size and oldest stamp, the keyset of
 * clusterOrder) and how many clusters the pages so far held.
 */
export const ClustersCursor = namedCursor("size", "first", "skipped")

/** A place in clusterOrder: the last cluster a page showed. */
export interface ClusterPlace {
  readonly size: number
  /** created_at of its oldest fact, for ties. */
  readonly first: number
}

export interface ClusterSizes extends ClusterPlace {
  /** How many of its fact ids, oldest first, the read holds (at least as many as can be shown). */
  readonly known: number
}

/** Largest first, ties: the older first fact (unique, so the order is total and a keyset). */
export const clusterOrder = (x: ClusterPlace, y: ClusterPlace): number => y.size - x.size || x.first - y.first

/**
 * Largest first, from just after the cluster `after`, at most `limit` clusters
 * and `perCluster` facts of each, until the budget of facts is spent: each chosen cluster with how
 * many of its facts, oldest first, to `take`.
 */
export const chooseClusters = <C extends ClusterSizes>(
  all: ReadonlyArray<C>,
  options: {
    readonly limit?: number | undefined
    readonly perCluster?: number | undefined
    readonly budget: number
    readonly after?: ClusterPlace | null | undefined
  }
): Array<C & { readonly take: number }> => {
  const after = options.after
  const ordered = [...all].sort(clusterOrder)
    .filter((c) => after == null || clusterOrder(c, after) > 0)
  const chosen: Array<C & { readonly take: number }> = []
  let left = options.budget
  for (const c of ordered.slice(0, options.limit ?? ordered.length)) {
    if (left <= 0) break
    const take = Math.min(options.perCluster ?? c.known, c.known, left)
    chosen.push({ ...c, take })
    left -= take
  }
  return chosen
}
