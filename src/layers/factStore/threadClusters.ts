import { Effect, Schema } from "effect"
import type { GraphDatabase } from "../../services/GraphDatabase.js"

/**
 * Threads and clusters kept on write (schema 8), so no read walks a thread or the graph's shape:
 *
 * - every fact stores `root`, its thread's root (a root its own id, a child its first parent's),
 *   in the CREATE that makes it: a thread is the facts of one `root` (the Fact.root index);
 * - every root has a `(r)-[:THREAD {root, cluster}]->(r)` self-loop naming its cluster's
 *   representative (a root's id);
 * - every representative has a `(k)-[:CLUSTER {rep, size, roots, first, last, firsts}]->(k)`
 *   self-loop: facts, roots, oldest and newest stamps, and its `firstsKept` oldest facts as
 *   `[stamp, id]` pairs (schema 10: a page reads them through the unique Fact.id index, where a
 *   stamp needed its own lookup and a check of the fact's root; stamps are unique and rise in commit
 *   order, and FalkorDB sorts pairs by their first element, so a save appends and a union merges two
 *   sorted lists);
 * - both loops are found by their own ids through the edge indexes (THREAD.root, CLUSTER.rep): an
 *   unbound edge pattern is an index seek, where a hop from the node is a Conditional Traverse
 *   (~0.3 ms a save on a loaded 2-core machine at 100k facts, against ~0.05 ms);
 * - a forked parent's MARKS edge stores the parent's root, so a cluster's forks are an index read.
 *
 * A cluster is a union of threads joined by SUPERSEDES (domain/model/clusters.ts): union by roots,
 * the smaller cluster's THREAD edges relabelled, never a fact. Append-only: clusters never split.
 * What changes lives on edges (docs/design/performance.md: a node update after a create costs in
 * proportion to the graph in FalkorDB 4.16; an edge's does not).
 */
export const firstsKept = 20

/** The `root` a new fact stores: its own id, or its first parent's (bound as `p`). */
export const rootOf = (child: boolean): string => (child ? "p.root" : "$id")

/**
 * After a save's CREATE (the new fact bound as `f`, its stamp `ts`; `made`: this statement made it):
 * a root opens its thread and cluster; a child (first parent `p`) counts in its root's cluster.
 * Keeps one row and carries `carry`.
 */
export const clusterOnSave = (child: boolean, carry: ReadonlyArray<string>): string => {
  const made = "f.created_at = ts"
  if (!child) {
    return `FOREACH (_ IN CASE WHEN ${made} THEN [1] ELSE [] END | ` +
      `CREATE (f)-[:THREAD {root: f.id, cluster: f.id}]->(f), ` +
      `(f)-[:CLUSTER {rep: f.id, size: 1, roots: 1, first: ts, last: ts, firsts: [[ts, f.id]]}]->(f)) `
  }
  return `WITH ${carry.join(", ")}, p.root AS tc_r OPTIONAL MATCH ()-[tc_t:THREAD]->() WHERE tc_t.root = tc_r ` +
    `WITH ${carry.join(", ")}, tc_t.cluster AS tc_k ` +
    `OPTIONAL MATCH ()-[tc_c:CLUSTER]->() WHERE tc_c.rep = tc_k ` +
    `FOREACH (tc_x IN CASE WHEN ${made} AND tc_c IS NOT NULL THEN [tc_c] ELSE [] END | ` +
    `SET tc_x.size = tc_x.size + 1, tc_x.last = ts, tc_x.firsts = CASE WHEN size(tc_x.firsts) < ${firstsKept} ` +
    `THEN tc_x.firsts + [[ts, f.id]] ELSE tc_x.firsts END) ` +
    `WITH ${carry.join(", ")} `
}

/**
 * Joins the clusters of two facts (a SUPERSEDES edge between them), the smaller (by roots) into the
 * larger: its roots' THREAD edges relabelled, the tallies added, its CLUSTER edge deleted. Nothing
 * when they are one cluster already, so a retried call (or one made again) is safe.
 */
export const joinClustersQuery = `MATCH (ja:Fact {id: $a}), (jb:Fact {id: $b}) WITH ja.root AS ra, jb.root AS rb ` +
  `OPTIONAL MATCH ()-[ta:THREAD]->() WHERE ta.root = ra ` +
  `OPTIONAL MATCH ()-[tb:THREAD]->() WHERE tb.root = rb ` +
  `WITH ta.cluster AS ka, tb.cluster AS kb WHERE ka IS NOT NULL AND kb IS NOT NULL AND ka <> kb ` +
  `MATCH ()-[ca:CLUSTER]->() WHERE ca.rep = ka MATCH ()-[cb:CLUSTER]->() WHERE cb.rep = kb ` +
  `WITH ka, kb, ca, cb, ca.roots > cb.roots OR (ca.roots = cb.roots AND ca.first <= cb.first) AS aBig ` +
  `WITH CASE WHEN aBig THEN ka ELSE kb END AS big, CASE WHEN aBig THEN kb ELSE ka END AS small, ` +
  `CASE WHEN aBig THEN ca ELSE cb END AS bc, CASE WHEN aBig THEN cb ELSE ca END AS sc ` +
  `OPTIONAL MATCH ()-[tm:THREAD]->() WHERE tm.cluster = small ` +
  `FOREACH (x IN CASE WHEN tm IS NULL THEN [] ELSE [tm] END | SET x.cluster = big) ` +
  `WITH big, small, bc, sc, count(tm) AS moved ` +
  `SET bc.size = bc.size + sc.size, bc.roots = bc.roots + sc.roots, ` +
  `bc.first = CASE WHEN sc.first < bc.first THEN sc.first ELSE bc.first END, ` +
  `bc.last = CASE WHEN sc.last > bc.last THEN sc.last ELSE bc.last END, ` +
  `bc.firsts = list.sort(bc.firsts + sc.firsts)[0..${firstsKept}] ` +
  `DELETE sc ` +
  `RETURN moved`

/** After a write that added SUPERSEDES from `a` to `b` (or found it): their clusters as one. */
export const joinClusters = (db: GraphDatabase["Type"], a: string, b: string) =>
  db.write(joinClustersQuery, { a, b }, Schema.Struct({ moved: Schema.Number })).pipe(Effect.asVoid)

/**
 * The bulk paths' part (saveMany.ts, an import's batch), after their facts exist, `base` bound to
 * the stamp the offsets count from: `$newRoots` open threads and clusters ({id, n, first, last,
 * offs}: [stamp as an offset from base, id] pairs), `$grown` ({root, n, first, last, offs}) count in their root's
 * cluster, summed a cluster first (a SET per row of one edge would keep only the last row's). An
 * import's facts may be older than what a cluster holds, so `first` is a minimum and the kept
 * stamps a merge of both lists. Keeps one row, carrying `base`.
 */
export const clusterOnBatch = `UNWIND CASE WHEN size($newRoots) = 0 THEN [null] ELSE $newRoots END AS nr ` +
  `OPTIONAL MATCH (r:Fact {id: nr.id}) ` +
  `FOREACH (x IN CASE WHEN r IS NULL THEN [] ELSE [r] END | CREATE (x)-[:THREAD {root: x.id, cluster: x.id}]->(x), ` +
  `(x)-[:CLUSTER {rep: x.id, size: nr.n, roots: 1, first: base + nr.first, last: base + nr.last, ` +
  `firsts: [o IN nr.offs | [base + o[0], o[1]]]}]->(x)) ` +
  `WITH base, count(*) AS opened ` +
  `UNWIND CASE WHEN size($grown) = 0 THEN [null] ELSE $grown END AS g ` +
  `WITH base, g, g.root AS gr OPTIONAL MATCH ()-[t:THREAD]->() WHERE t.root = gr ` +
  `WITH base, t.cluster AS k, sum(g.n) AS n, min(g.first) AS first, max(g.last) AS last, collect(g.offs) AS offsLists ` +
  `WITH base, k, n, first, last, reduce(a = [], l IN offsLists | a + l) AS offs ` +
  `OPTIONAL MATCH ()-[c:CLUSTER]->() WHERE c.rep = k ` +
  `FOREACH (x IN CASE WHEN c IS NULL THEN [] ELSE [c] END | SET x.size = x.size + n, ` +
  `x.first = CASE WHEN base + first < x.first THEN base + first ELSE x.first END, ` +
  `x.last = CASE WHEN base + last > x.last THEN base + last ELSE x.last END, ` +
  `x.firsts = list.sort(x.firsts + [o IN offs | [base + o[0], o[1]]])[0..${firstsKept}]) ` +
  `WITH base, count(*) AS grown `

/**
 * What clusterOnBatch is given, from a batch (`at`: a fact's stamp as an offset from the statement's
 * base; a bulk save's place in it, an import's stamp itself), in any order.
 */
export const batchClusters = (
  rows: ReadonlyArray<{ readonly id: string; readonly root: string; readonly at: number }>
) => {
  type Tally = { n: number; first: number; last: number; offs: Array<[number, string]> }
  const opened = new Map<string, Tally & { id: string }>()
  const grown = new Map<string, Tally & { root: string }>()
  const tallyOf = (r: { readonly id: string; readonly root: string }): Tally => {
    if (r.root === r.id || opened.has(r.root)) {
      const t = opened.get(r.root) ?? { id: r.root, n: 0, first: Infinity, last: -Infinity, offs: [] }
      opened.set(r.root, t)
      return t
    }
    const t = grown.get(r.root) ?? { root: r.root, n: 0, first: Infinity, last: -Infinity, offs: [] }
    grown.set(r.root, t)
    return t
  }
  // Roots first, so a child listed before its root (an import in any order) counts in the opened cluster.
  for (const r of [...rows.filter((r) => r.root === r.id), ...rows.filter((r) => r.root !== r.id)]) {
    const t = tallyOf(r)
    t.n++
    t.first = Math.min(t.first, r.at)
    t.last = Math.max(t.last, r.at)
    t.offs.push([r.at, r.id])
  }
  const cut = <T extends Tally>(t: T): T => ({ ...t, offs: t.offs.sort((a, b) => a[0] - b[0]).slice(0, firstsKept) })
  return { newRoots: [...opened.values()].map(cut), grown: [...grown.values()].map(cut) }
}
