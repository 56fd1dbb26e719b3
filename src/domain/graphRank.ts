import { namedCursor } from "./paging.js"

/**
 * Importance and clusters over the memory's shape, computed in Relay's process from the shape read
 * in bounded statements (layers/factStore/graphShape.ts), so no statement of theirs holds FalkorDB
 * for the whole graph (its algo.pageRank and algo.WCC held it 1.1-1.4 s and past the 2 s timeout
 * at 1M facts). Facts are numbered 0..n-1; `parent` is each fact's BUILDS_ON target (-1: a root).
 */

/**
 * PageRank over BUILDS_ON (new → old, so rank gathers on the facts later work rests on): damping
 * 0.85, every fact starting at 1/n, until the scores move less than 1e-9 in all or 50 rounds. A
 * fact has at most one parent, so each round is one pass over the facts. Roots pass nothing on (as
 * FalkorDB's own PageRank, the GAP variant, treats a node without out-edges).
 */
export const pageRank = (parent: Int32Array): Float64Array => {
  const n = parent.length
  const damping = 0.85
  let rank = new Float64Array(n).fill(n === 0 ? 0 : 1 / n)
  let next = new Float64Array(n)
  for (let round = 0; round < 50; round++) {
    next.fill((1 - damping) / n)
    for (let v = 0; v < n; v++) {
      const p = parent[v]!
      if (p >= 0) next[p]! += damping * rank[v]!
    }
    let moved = 0
    for (let v = 0; v < n; v++) moved += Math.abs(next[v]! - rank[v]!)
    ;[rank, next] = [next, rank]
    if (moved < 1e-9) break
  }
  return rank
}

/**
 * relay_get_important_facts' cursor: the last fact shown, by its rank (the score as a whole number,
 * layers/factStore/rankGenerations.ts rankOf) and its created_at, the keyset of the ranking.
 */
export const ImportantCursor = namedCursor("rank", "at")

/** Connected components over BUILDS_ON and the given SUPERSEDES pairs, direction ignored: each fact's component's representative. */
export const components = (parent: Int32Array, links: ReadonlyArray<readonly [number, number]>): Int32Array => {
  const up = new Int32Array(parent.length)
  for (let v = 0; v < up.length; v++) up[v] = v
  const find = (x: number): number => {
    let root = x
    while (up[root] !== root) root = up[root]!
    while (up[x] !== root) {
      const next = up[x]!
      up[x] = root
      x = next
    }
    return root
  }
  const union = (a: number, b: number) => {
    const ra = find(a)
    const rb = find(b)
    if (ra !== rb) up[ra] = rb
  }
  for (let v = 0; v < parent.length; v++) if (parent[v]! >= 0) union(v, parent[v]!)
  for (const [a, b] of links) union(a, b)
  for (let v = 0; v < up.length; v++) up[v] = find(v)
  return up
}
