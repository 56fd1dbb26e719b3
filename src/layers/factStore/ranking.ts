import { Effect, Schema } from "effect"
import { chooseClusters, clusterFactBudget } from "../../domain/clusters.js"
import type { Fact } from "../../domain/fact.js"
import { currentBudget, encodeCursor, fitting, page, replyCost } from "../../domain/paging.js"
import type { Cluster, Clusters, ClustersOptions, ImportantOptions, Page } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { readConflictsIn } from "./conflicts.js"
import { FactColumn, FactFromRow, factMap, stampOf } from "./projection.js"

/**
 * PageRank over BUILDS_ON (new → old), so rank gathers on the facts later work rests on; ties: older
 * first. A retracted fact keeps its place in the rank of others but is not listed. Pages go by keyset on (rank, created_at): rank is the score in whole 1e-12 units, because
 * a score sent back as text loses its last bits and would not compare equal to itself.
 */
export const importantQuery = `CALL algo.pageRank('Fact', 'BUILDS_ON') YIELD node, score ` +
  `WITH node, score, toInteger(round(score * 1000000000000)) AS rank ` +
  `WHERE (rank < $rank OR (rank = $rank AND node.created_at > $at)) AND indegree(node, 'RETRACTS') = 0 ` +
  `WITH node, score, rank ORDER BY rank DESC, node.created_at ASC LIMIT $limit ` +
  `RETURN ${factMap("node")} AS fact, score, rank`

const ImportantRow = Schema.Struct({ fact: FactFromRow, score: Schema.Number, rank: Schema.Number })

export const important = (
  db: GraphDatabase["Type"],
  options: ImportantOptions
) =>
  db.read(importantQuery, {
    limit: options.limit + 1,
    rank: options.after?.[0] ?? Number.MAX_SAFE_INTEGER,
    at: options.after?.[1] ?? 0
  }, ImportantRow).pipe(
    Effect.zip(currentBudget()),
    Effect.map(([rows, budget]): Page<{ fact: Fact; score: number }> => {
      const cut = page(rows, options.limit, (r) => [r.rank, stampOf(r.fact)], budget)
      return { items: cut.items.map((r) => ({ fact: r.fact, score: r.score })), next_cursor: cut.next_cursor }
    })
  )

/**
 * Connected components over BUILDS_ON and SUPERSEDES, direction ignored. The first statement sizes
 * every component and lists its ids oldest first (cheap: no fact is mapped); the clusters that fit
 * the answer are chosen here (domain/clusters.ts), and only their facts are read in full.
 * Each component sorts its own [created_at, id] pairs (stamps are unique, so the pairs order by
 * age): one ORDER BY over every fact would keep all their records, about half the query's server
 * time at 100k. A component's ids come as one comma-joined string (ids hold no comma), split only
 * for the clusters chosen: as a list, every id of the memory would be a string to decode, most of
 * relay_get_clusters' CPU at 100k.
 */
export const clusterSizesQuery =
  `CALL algo.WCC({nodeLabels: ['Fact'], relationshipTypes: ['BUILDS_ON', 'SUPERSEDES']}) ` +
  `YIELD node, componentId ` +
  `WITH componentId, collect([node.created_at, node.id]) AS members, ` +
  `collect(CASE WHEN indegree(node, 'MARKS') > 0 THEN id(node) END) AS marked ` +
  `WITH list.sort(members) AS sorted, marked ` +
  `RETURN size(sorted) AS size, sorted[0][0] AS first, sorted[-1][0] AS last, marked, ` +
  `string.join([m IN sorted[0..$cap] | m[1]], ',') AS ids`

const ClusterSizesRow = Schema.Struct({
  size: Schema.Number,
  first: Schema.Number,
  last: Schema.Number,
  /** Node ids of its forked parents (a ForkMark points at them). */
  marked: Schema.Array(Schema.Number),
  ids: Schema.String
})

/** The texts of the clusters' oldest facts (one read for the page). */
const labelsQuery = `UNWIND $ids AS id MATCH (f:Fact {id: id}) RETURN f.id AS id, f.content AS content`
const LabelRow = Schema.Struct({ id: Schema.String, content: Schema.String })

/** How long a cluster's label is: its oldest fact's text, cut. */
export const clusterLabelLength = 80

const cutLabel = (text: string): string => {
  const chars = [...text.replace(/\s+/g, " ").trim()]
  return chars.length <= clusterLabelLength ? chars.join("") : `${chars.slice(0, clusterLabelLength - 1).join("")}…`
}

/** The fact ids of nodes (by node id, unlabelled so the id is sought: see currentState.ts). */
const nodeIdsQuery = `UNWIND $nodes AS n MATCH (f) WHERE id(f) = n RETURN n, f.id AS id`
const NodeIdRow = Schema.Struct({ n: Schema.Number, id: Schema.String })

const factBatch = 200

export const factsByIdQuery = `UNWIND $ids AS id MATCH (f:Fact {id: id}) RETURN ${factMap("f")} AS fact`

/**
 * One page of clusters: the clusters after `after` that fit the budget of facts and the reply's byte
 * budget, whole clusters only, except that a first cluster too large for the bytes shows the oldest
 * facts that fit (its size still whole). `id` is the cluster's place in the whole order, so it runs
 * on across pages.
 */
export const clusters = Effect.fn("relay/factStore/clusters")(function*(
  db: GraphDatabase["Type"],
  options: ClustersOptions
) {
  const budget = yield* currentBudget()
  const cap = Math.min(options.factsPerCluster ?? clusterFactBudget, clusterFactBudget)
  const all = (yield* db.read(clusterSizesQuery, { cap }, ClusterSizesRow)).map((c) => ({
    ...c,
    known: Math.min(c.size, cap)
  }))
  const after = options.after ?? null
  const chosen = chooseClusters(all, {
    limit: options.limit,
    perCluster: options.factsPerCluster,
    budget: clusterFactBudget,
    after
  })
  // Facts are read in batches, oldest cluster order first, until the reply budget is spent: long
  // facts fill a reply long before the 2,000 that the fact budget allows.
  const idsOf = chosen.map((c) => c.ids.split(",").slice(0, c.take))
  const ids = idsOf.flat()
  const byId = new Map<string, Fact>()
  let cost = 0
  for (let i = 0; i < ids.length && cost <= budget; i += factBatch) {
    const rows = yield* db.read(factsByIdQuery, { ids: ids.slice(i, i + factBatch) }, FactColumn)
    for (const { fact } of rows) {
      byId.set(fact.id, fact)
      cost += replyCost(fact) + 1
    }
  }
  // The page's labels and open conflicts: the oldest facts' texts, and which forked parents of the
  // chosen clusters have an open conflict (the conflicts query over just those parents).
  const roots = chosen.map((c) => c.ids.split(",", 1)[0]!)
  const labels = new Map(
    (roots.length === 0 ? [] : yield* db.read(labelsQuery, { ids: roots }, LabelRow)).map((r) => [r.id, r.content])
  )
  const marked = chosen.flatMap((c) => c.marked)
  const open = new Set(
    marked.length === 0 ? [] : (yield* readConflictsIn(db, {
      limit: marked.length,
      after: null,
      children: 1
    }, marked)).map((i) => i.conflict.parent.id)
  )
  const markedIds = marked.length === 0
    ? new Map<number, string>()
    : new Map((yield* db.read(nodeIdsQuery, { nodes: marked }, NodeIdRow)).map((r) => [r.n, r.id]))
  const skipped = after === null
    ? 0
    : all.filter((c) => c.size > after[0] || (c.size === after[0] && c.first <= after[1])).length
  const shaped = chosen.map((c, i): Cluster => ({
    id: skipped + i + 1,
    size: c.size,
    label: cutLabel(labels.get(roots[i]!) ?? ""),
    thread: roots[i]!,
    lastActivity: c.last,
    openConflicts: c.marked.filter((n) => open.has(markedIds.get(n) ?? "")).length,
    facts: idsOf[i]!.flatMap((id) => {
      const fact = byId.get(id)
      return fact === undefined ? [] : [fact]
    })
  }))
  // Whole clusters only (a cluster whose facts were not all read is left for the next page), but
  // always the first, cut to the facts that fit.
  const whole = shaped.findIndex((c, i) => i > 0 && c.facts.length < chosen[i]!.take)
  const complete = whole === -1 ? shaped : shaped.slice(0, whole)
  const kept = complete.slice(0, fitting(complete, budget))
  const first = kept[0]
  if (kept.length === 1 && first !== undefined && replyCost(first) > budget) {
    kept[0] = { ...first, facts: first.facts.slice(0, fitting(first.facts, Math.max(budget - 100, 0))) }
  }
  const last = chosen[kept.length - 1]
  const result: Clusters = {
    total: all.length,
    clusters: kept,
    nextCursor: last !== undefined && skipped + kept.length < all.length ? encodeCursor([last.size, last.first]) : null
  }
  return result
})
