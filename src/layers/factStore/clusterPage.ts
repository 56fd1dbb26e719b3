import { Effect, Ref, Schema } from "effect"
import { chooseClusters, clusterFactBudget, type ClusterPlace, ClustersCursor } from "../../domain/clusters.js"
import type { Fact } from "../../domain/fact.js"
import { currentBudget, fitting, replyCost } from "../../domain/paging.js"
import type { Cluster, Clusters, ClustersOptions } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { readConflictsIn } from "./conflicts.js"
import { notOpen } from "./forkMark.js"
import { FactColumn, FactFromRow, factMap, stampOf } from "./projection.js"
import { firstsKept } from "./threadClusters.js"

/** How long a cluster's label is: its oldest fact's text, cut. */
export const clusterLabelLength = 80

const cutLabel = (text: string): string => {
  const chars = [...text.replace(/\s+/g, " ").trim()]
  return chars.length <= clusterLabelLength ? chars.join("") : `${chars.slice(0, clusterLabelLength - 1).join("")}…`
}

/** Every CLUSTER edge is one cluster: FalkorDB counts a type's edges without a scan. */
const totalQuery = `MATCH ()-[c:CLUSTER]->() RETURN count(c) AS n`
const CountRow = Schema.Struct({ n: Schema.Number })

/** A cluster's oldest facts' ids from its kept [stamp, id] pairs, `take` of them, one a row (`[null]`: none). */
const firstIds = (c: string, take: string) =>
  `UNWIND CASE WHEN size(${c}.firsts[0..${take}]) = 0 THEN [null] ELSE [x IN ${c}.firsts[0..${take}] | x[1]] END AS fid ` +
  `OPTIONAL MATCH (f:Fact) WHERE f.id = fid`

/** A fact map, or null where the OPTIONAL MATCH found none (a map of nulls is not null to collect()). */
const factOrNull = `CASE WHEN f IS NULL THEN null ELSE ${factMap("f")} END`

/**
 * The next clusters after the keyset ($s, $f), largest first, through the CLUSTER.size index: only
 * clusters of at least `$min` facts are read and sorted, `$min` lowered until a page is full.
 */
const tallyPart = `MATCH ()-[c:CLUSTER]->() WHERE c.size >= $min AND (c.size < $s OR (c.size = $s AND c.first > $f)) ` +
  `WITH c ORDER BY c.size DESC, c.first LIMIT $n `

/**
 * The forked parents of the cluster bound as `c` that may be open now, from its roots: THREAD.cluster,
 * then MARKS.root, `opened` below "not open" tested after (a seek on both ran many times slower in
 * FalkorDB 4.16: docs/design/performance.md). Each key is bound to a variable before its index is
 * sought (a row's property in the pattern is planned as a scan); collected back to one row a
 * cluster, so the rows come in no order.
 */
const forksPart = `WITH c, c.rep AS k OPTIONAL MATCH ()-[t:THREAD]->() WHERE t.cluster = k ` +
  `WITH c, collect(t.root) AS roots ` +
  `UNWIND CASE WHEN size(roots) = 0 THEN [null] ELSE roots END AS r ` +
  `OPTIONAL MATCH ()-[m:MARKS]->(p) WHERE m.root = r ` +
  `WITH c, collect(CASE WHEN m.opened < ${notOpen} THEN [id(p), p.id] END) AS forks `

const tallyColumns = `c.rep AS rep, c.size AS size, c.first AS first, c.last AS last, size(c.firsts) AS kept`

/** A page in one statement: its tallies, each one's possibly open forks and its `$take` oldest facts. */
const pageQuery = `${tallyPart}${forksPart}${firstIds("c", "$take")} ` +
  `RETURN ${tallyColumns}, forks, collect(${factOrNull}) AS facts`

/** A page's tallies alone: a page of many clusters, of which the budget of facts may take only some. */
const tallyQuery = `${tallyPart}RETURN ${tallyColumns}, [] AS forks, [] AS facts`

/** The possibly open forks of the chosen clusters, by their representatives (CLUSTER.rep). */
const forksQuery = `UNWIND $reps AS rep MATCH ()-[c:CLUSTER]->() WHERE c.rep = rep ${forksPart}RETURN c.rep AS k, forks`
const KeyedForks = Schema.Struct({ k: Schema.String, forks: Schema.Array(Schema.Tuple(Schema.Number, Schema.String)) })

const PageRow = Schema.Struct({
  rep: Schema.String,
  size: Schema.Number,
  first: Schema.Number,
  last: Schema.Number,
  kept: Schema.Number,
  forks: Schema.Array(Schema.Tuple(Schema.Number, Schema.String)),
  facts: Schema.Array(FactFromRow)
})
type Tally = typeof PageRow.Type

/** How many clusters come before the keyset (a cursor without its place). */
const placeQuery = `MATCH ()-[c:CLUSTER]->() WHERE c.size > $s OR (c.size = $s AND c.first <= $f) RETURN count(c) AS n`

/** The oldest facts of clusters ([representative, how many]) by their kept ids, through Fact.id. */
const byIdQuery = `UNWIND $picks AS p WITH p[0] AS k, p[1] AS take MATCH ()-[c:CLUSTER]->() WHERE c.rep = k ` +
  `${firstIds("c", "take")} RETURN k, collect(${factOrNull}) AS facts`
const KeyedFacts = Schema.Struct({ k: Schema.String, facts: Schema.Array(FactFromRow) })

/** More facts than the cluster keeps: its roots' facts through the Fact.root index, oldest first. */
const oldestQuery = `MATCH ()-[t:THREAD]->(r) WHERE t.cluster = $k WITH collect(r.id) AS roots ` +
  `MATCH (f:Fact) WHERE f.root IN roots WITH f ORDER BY f.created_at LIMIT $take RETURN ${factMap("f")} AS fact`

/** The size threshold a full first page was last found at (learned per store; sizes only grow). */
export type ClusterFloor = Ref.Ref<number>
export const makeClusterFloor = Ref.make(1 << 20)

const readTallies = Effect.fn("relay/factStore/clusterTallies")(function*(
  db: GraphDatabase["Type"],
  floor: ClusterFloor,
  want: number,
  after: ClusterPlace | null,
  take: number
) {
  const s = after?.size ?? Number.MAX_SAFE_INTEGER
  const f = after?.first ?? -Number.MAX_SAFE_INTEGER
  let min = Math.min(yield* Ref.get(floor), s)
  for (;;) {
    const rows = yield* db.read(take > 0 ? pageQuery : tallyQuery, { min, s, f, n: want, take }, PageRow)
    if (rows.length >= want || min <= 1) {
      // The rows come in no order (each stage collects): the page's smallest is its floor.
      if (after === null && rows.length >= want) {
        yield* Ref.set(
          floor,
          Math.max(1, Math.min(...rows.map((r) => r.size)))
        )
      }
      return rows
    }
    min = Math.max(1, Math.floor(min / 8))
  }
})

/**
 * Each chosen cluster's oldest `take` facts, in the page's order, until the reply's budget is spent:
 * those the page's statement read (`read`), then the kept ids of the rest, then beyond the kept.
 */
const oldestFacts = Effect.fn("relay/factStore/clusterFacts")(function*(
  db: GraphDatabase["Type"],
  chosen: ReadonlyArray<Tally & { readonly take: number }>,
  read: boolean,
  budget: number
) {
  const byCluster = new Map<string, ReadonlyArray<Fact>>()
  const picks = read ? [] : chosen.filter((c) => c.take <= c.kept).map((c) => [c.rep, c.take] as const)
  for (const c of chosen) if (read && c.take <= c.kept) byCluster.set(c.rep, c.facts)
  for (const r of picks.length === 0 ? [] : yield* db.read(byIdQuery, { picks }, KeyedFacts)) {
    byCluster.set(r.k, r.facts)
  }
  let cost = 0
  for (const c of chosen) {
    if (cost > budget) break
    if (c.take > c.kept) {
      byCluster.set(c.rep, (yield* db.read(oldestQuery, { k: c.rep, take: c.take }, FactColumn)).map((r) => r.fact))
    }
    const facts = [...(byCluster.get(c.rep) ?? [])].sort((x, y) => stampOf(x) - stampOf(y)).slice(0, c.take)
    byCluster.set(c.rep, facts)
    for (const fact of facts) cost += replyCost(fact) + 1
  }
  return byCluster
})

type Forks = ReadonlyMap<string, ReadonlyArray<readonly [number, string]>>

/** The chosen clusters' possibly open forks, when the page's statement did not read them. */
const forksOf = (db: GraphDatabase["Type"], chosen: ReadonlyArray<Tally>) =>
  chosen.length === 0 ? Effect.succeed<Forks>(new Map()) : Effect.map(
    db.read(forksQuery, { reps: chosen.map((c) => c.rep) }, KeyedForks),
    (rows): Forks => new Map(rows.map((r) => [r.k, r.forks]))
  )

/** How many of the chosen clusters' forked parents have an open conflict now, a cluster. */
const openConflictsOf = Effect.fn("relay/factStore/clusterConflicts")(function*(
  db: GraphDatabase["Type"],
  chosen: ReadonlyArray<Tally>,
  forksByCluster: Forks
) {
  const forks = chosen.flatMap((c) => (forksByCluster.get(c.rep) ?? []).map(([n, id]) => ({ n, id, k: c.rep })))
  const open = new Set(
    forks.length === 0 ? [] : (yield* readConflictsIn(db, {
      limit: forks.length,
      after: null,
      children: 1
    }, forks.map((x) => x.n))).map((i) => i.conflict.parent.id)
  )
  const counts = new Map<string, number>()
  for (const x of forks) if (open.has(x.id)) counts.set(x.k, (counts.get(x.k) ?? 0) + 1)
  return counts
})

/**
 * One page of clusters, read through indexes: the tallies of the page (CLUSTER.size), each one's
 * roots (THREAD.cluster), their possibly open forks (MARKS.root) and its oldest facts by their kept
 * ids (Fact.id) in one statement, the count beside it; then the exact conflicts of those forks. `id` is the cluster's place in the whole order: the cursor carries it.
 */
export const clusterPage = Effect.fn("relay/factStore/clusters")(function*(
  db: GraphDatabase["Type"],
  floor: ClusterFloor,
  options: ClustersOptions & { readonly skipped?: number | undefined }
) {
  const budget = yield* currentBudget()
  const after = options.after ?? null
  const want = Math.min(options.limit ?? clusterFactBudget, clusterFactBudget)
  const cap = Math.min(options.factsPerCluster ?? clusterFactBudget, clusterFactBudget)
  // The page's statement reads the facts too when every cluster's are kept and the budget cannot
  // cut the page (then chooseClusters takes min(size, cap) of each, what the kept ids give).
  const read = cap <= firstsKept && want * cap <= clusterFactBudget
  // The count and the place need nothing of the page: they go at once with its statement.
  const [total, tallies, place] = yield* Effect.all([
    Effect.map(db.read(totalQuery, {}, CountRow), (rows) => rows[0]?.n ?? 0),
    readTallies(db, floor, want, after, read ? cap : 0),
    after === null || options.skipped !== undefined
      ? Effect.succeed(options.skipped ?? 0)
      : Effect.map(db.read(placeQuery, { s: after.size, f: after.first }, CountRow), (rows) => rows[0]?.n ?? 0)
  ], { concurrency: "unbounded" })
  const chosen = chooseClusters(tallies.map((t) => ({ ...t, known: Math.min(t.size, cap) })), {
    limit: options.limit,
    perCluster: options.factsPerCluster,
    budget: clusterFactBudget
  })
  // Else the chosen clusters' facts and forks, at once.
  const [facts, forks] = yield* Effect.all([
    oldestFacts(db, chosen, read, budget),
    read ? Effect.succeed<Forks>(new Map(chosen.map((c) => [c.rep, c.forks]))) : forksOf(db, chosen)
  ], { concurrency: "unbounded" })
  const open = yield* openConflictsOf(db, chosen, forks)
  const skipped = after === null ? 0 : place
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
