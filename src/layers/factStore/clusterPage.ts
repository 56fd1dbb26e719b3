import { Effect, Ref, Schema } from "effect"
import { chooseClusters, clusterFactBudget, type ClusterPlace, ClustersCursor } from "../../domain/clusters.js"
import type { Fact } from "../../domain/fact.js"
import { currentBudget, fitting, replyCost } from "../../domain/paging.js"
import type { Cluster, Clusters, ClustersOptions } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { readConflictsIn } from "./conflicts.js"
import { notOpen } from "./forkMark.js"
import { FactFromRow, factMap, stampOf } from "./projection.js"

/** How long a cluster's label is: its oldest fact's text, cut. */
export const clusterLabelLength = 80

const cutLabel = (text: string): string => {
  const chars = [...text.replace(/\s+/g, " ").trim()]
  return chars.length <= clusterLabelLength ? chars.join("") : `${chars.slice(0, clusterLabelLength - 1).join("")}…`
}

/** Every CLUSTER edge is one cluster: FalkorDB counts a type's edges without a scan. */
const totalQuery = `MATCH ()-[c:CLUSTER]->() RETURN count(c) AS n`
const CountRow = Schema.Struct({ n: Schema.Number })

/**
 * The next clusters after the keyset ($s, $f), largest first, through the CLUSTER.size index: only
 * clusters of at least `$min` facts are read and sorted, `$min` lowered until a page is full.
 */
const tallyQuery =
  `MATCH ()-[c:CLUSTER]->() WHERE c.size >= $min AND (c.size < $s OR (c.size = $s AND c.first > $f)) ` +
  `WITH c ORDER BY c.size DESC, c.first LIMIT $n ` +
  `RETURN c.rep AS rep, c.size AS size, c.first AS first, c.last AS last, c.firsts AS firsts`
const TallyRow = Schema.Struct({
  rep: Schema.String,
  size: Schema.Number,
  first: Schema.Number,
  last: Schema.Number,
  firsts: Schema.Array(Schema.Number)
})
type Tally = typeof TallyRow.Type

/** How many clusters come before the keyset (a cursor without its place). */
const placeQuery = `MATCH ()-[c:CLUSTER]->() WHERE c.size > $s OR (c.size = $s AND c.first <= $f) RETURN count(c) AS n`

/**
 * The oldest facts of clusters by their stamps ([cluster, stamp, its roots]: each checked to be of
 * its cluster, as stamps are unique only in a graph Relay alone wrote), through Fact.created_at.
 */
const byStampQuery = `UNWIND $pairs AS p WITH p[0] AS k, p[1] AS s, p[2] AS roots ` +
  `MATCH (f:Fact) WHERE f.created_at = s AND f.root IN roots RETURN k, ${factMap("f")} AS fact`
const KeyedFact = Schema.Struct({ k: Schema.String, fact: FactFromRow })

/** More facts than the cluster keeps stamps of: its roots' facts through the Fact.root index, oldest first. */
const oldestQuery = `MATCH ()-[t:THREAD]->(r) WHERE t.cluster = $k WITH collect(r.id) AS roots ` +
  `MATCH (f:Fact) WHERE f.root IN roots WITH f ORDER BY f.created_at LIMIT $take RETURN $k AS k, ${
    factMap("f")
  } AS fact`

/** The page's clusters' roots, and their forked parents that may be open now (the window admits now). */
const rootsQuery = `MATCH ()-[t:THREAD]->() WHERE t.cluster IN $reps RETURN t.cluster AS k, t.root AS root`
const RootRow = Schema.Struct({ k: Schema.String, root: Schema.String })
const forksQuery = `MATCH ()-[m:MARKS]->(p) WHERE m.root IN $roots AND m.opened < ${notOpen} ` +
  `RETURN id(p) AS n, p.id AS id, m.root AS root`
const ForkRow = Schema.Struct({ n: Schema.Number, id: Schema.String, root: Schema.String })

/** The size threshold a full first page was last found at (learned per store; sizes only grow). */
export type ClusterFloor = Ref.Ref<number>
export const makeClusterFloor = Ref.make(1 << 20)

const readTallies = Effect.fn("relay/factStore/clusterTallies")(function*(
  db: GraphDatabase["Type"],
  floor: ClusterFloor,
  want: number,
  after: ClusterPlace | null
) {
  const s = after?.size ?? Number.MAX_SAFE_INTEGER
  const f = after?.first ?? -Number.MAX_SAFE_INTEGER
  let min = Math.min(yield* Ref.get(floor), s)
  for (;;) {
    const rows = yield* db.read(tallyQuery, { min, s, f, n: want }, TallyRow)
    if (rows.length >= want || min <= 1) {
      if (after === null && rows.length >= want) yield* Ref.set(floor, Math.max(1, rows[rows.length - 1]!.size))
      return rows
    }
    min = Math.max(1, Math.floor(min / 8))
  }
})

/** Each chosen cluster's oldest `take` facts, in the page's order, until the reply's budget is spent. */
const oldestFacts = Effect.fn("relay/factStore/clusterFacts")(function*(
  db: GraphDatabase["Type"],
  chosen: ReadonlyArray<Tally & { readonly take: number }>,
  rootsOf: ReadonlyMap<string, ReadonlyArray<string>>,
  budget: number
) {
  const byCluster = new Map<string, Array<Fact>>()
  const stamped = chosen.filter((c) => c.take <= c.firsts.length)
  const pairs = stamped.flatMap((c) =>
    c.firsts.slice(0, c.take).map((t) => [c.rep, t, [...(rootsOf.get(c.rep) ?? [])]] as const)
  )
  for (const r of pairs.length === 0 ? [] : yield* db.read(byStampQuery, { pairs }, KeyedFact)) {
    byCluster.set(r.k, [...(byCluster.get(r.k) ?? []), r.fact])
  }
  let cost = 0
  for (const c of chosen) {
    if (cost > budget) break
    if (c.take > c.firsts.length) {
      const roots = [...(rootsOf.get(c.rep) ?? [])]
      byCluster.set(
        c.rep,
        (yield* db.read(oldestQuery, { k: c.rep, roots, take: c.take }, KeyedFact)).map((r) => r.fact)
      )
    }
    const facts = (byCluster.get(c.rep) ?? []).sort((x, y) => stampOf(x) - stampOf(y))
    byCluster.set(c.rep, facts)
    for (const fact of facts) cost += replyCost(fact) + 1
  }
  return byCluster
})

/** How many of the page's clusters' forked parents have an open conflict now, a cluster. */
const openConflictsOf = Effect.fn("relay/factStore/clusterConflicts")(function*(
  db: GraphDatabase["Type"],
  clusterOf: ReadonlyMap<string, string>
) {
  const forks = clusterOf.size === 0 ? [] : yield* db.read(forksQuery, { roots: [...clusterOf.keys()] }, ForkRow)
  const open = new Set(
    forks.length === 0 ? [] : (yield* readConflictsIn(db, {
      limit: forks.length,
      after: null,
      children: 1
    }, forks.map((x) => x.n))).map((i) => i.conflict.parent.id)
  )
  const counts = new Map<string, number>()
  for (const x of forks) {
    const k = clusterOf.get(x.root)
    if (k !== undefined && open.has(x.id)) counts.set(k, (counts.get(k) ?? 0) + 1)
  }
  return counts
})

/**
 * One page of clusters, read through indexes: the tallies of the page (CLUSTER.size), each one's
 * oldest facts by their stamps (Fact.created_at), its roots (THREAD.cluster) and their open forks
 * (MARKS.root). `id` is the cluster's place in the whole order: the cursor carries it.
 */
export const clusterPage = Effect.fn("relay/factStore/clusters")(function*(
  db: GraphDatabase["Type"],
  floor: ClusterFloor,
  options: ClustersOptions & { readonly skipped?: number | undefined }
) {
  const budget = yield* currentBudget()
  const after = options.after ?? null
  const want = Math.min(options.limit ?? clusterFactBudget, clusterFactBudget)
  const total = (yield* db.read(totalQuery, {}, CountRow))[0]?.n ?? 0
  const tallies = yield* readTallies(db, floor, want, after)
  const cap = Math.min(options.factsPerCluster ?? clusterFactBudget, clusterFactBudget)
  const chosen = chooseClusters(tallies.map((t) => ({ ...t, known: Math.min(t.size, cap) })), {
    limit: options.limit,
    perCluster: options.factsPerCluster,
    budget: clusterFactBudget
  })
  const reps = chosen.map((c) => c.rep)
  const roots = reps.length === 0 ? [] : yield* db.read(rootsQuery, { reps }, RootRow)
  const rootsOf = new Map<string, Array<string>>()
  for (const r of roots) rootsOf.set(r.k, [...(rootsOf.get(r.k) ?? []), r.root])
  const facts = yield* oldestFacts(db, chosen, rootsOf, budget)
  const open = yield* openConflictsOf(db, new Map(roots.map((r) => [r.root, r.k])))
  const skipped = after === null
    ? 0
    : options.skipped ?? (yield* db.read(placeQuery, { s: after.size, f: after.first }, CountRow))[0]?.n ?? 0
  const shaped = chosen.map((c, i): Cluster => {
    const own = facts.get(c.rep) ?? []
    return {
      id: skipped + i + 1,
      size: c.size,
      label: cutLabel(own[0]?.content ?? ""),
      thread: own[0]?.id ?? "",
      lastActivity: c.last,
      openConflicts: open.get(c.rep) ?? 0,
      facts: own
    }
  })
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
    total,
    clusters: kept,
    nextCursor: last !== undefined && skipped + kept.length < total
      ? ClustersCursor.encode({ size: last.size, first: last.first, skipped: skipped + kept.length })
      : null
  }
  return result
})
