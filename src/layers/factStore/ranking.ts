import { Effect, Schema } from "effect"
import { chooseClusters, clusterFactBudget } from "../../domain/clusters.js"
import type { Fact } from "../../domain/fact.js"
import { components, pageRank } from "../../domain/graphRank.js"
import { currentBudget, encodeCursor, fitting, page, replyCost } from "../../domain/paging.js"
import type { Cluster, Clusters, ClustersOptions, ImportantOptions, Page } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { readConflictsIn } from "./conflicts.js"
import { type GraphShape, readShape } from "./graphShape.js"
import { FactFromRow, factMap, stampOf } from "./projection.js"

/** Rank as a keyset key: the score in whole 1e-12 units (a score sent back as text loses its last bits and would not compare equal to itself). */
const rankOf = (score: number): number => Math.round(score * 1_000_000_000_000)

/** Facts by node id, in the order asked (unlabelled, so the id is sought: see currentState.ts). */
export const factsByNodeQuery = `UNWIND $nodes AS n MATCH (f) WHERE id(f) = n RETURN n, ${factMap("f")} AS fact`
const NodeFactRow = Schema.Struct({ n: Schema.Number, fact: FactFromRow })

const factsByNode = (db: GraphDatabase["Type"], nodes: ReadonlyArray<number>) =>
  nodes.length === 0 ? Effect.succeed(new Map<number, Fact>()) : Effect.map(
    db.read(factsByNodeQuery, { nodes }, NodeFactRow),
    (rows) => new Map(rows.map((r) => [r.n, r.fact]))
  )

/**
 * PageRank over BUILDS_ON (domain/graphRank.ts) on the shape read in bounded statements; ties: older
 * first. A retracted fact keeps its place in the rank of others but is not listed. Pages go by keyset
 * on (rank, created_at).
 */
export const important = Effect.fn("relay/factStore/important")(function*(
  db: GraphDatabase["Type"],
  options: ImportantOptions
) {
  const shape = yield* readShape(db, { retracted: true })
  const scores = pageRank(shape.parent)
  const afterRank = options.after?.[0] ?? Number.MAX_SAFE_INTEGER
  const afterAt = options.after?.[1] ?? 0
  // The page's best by one pass (a sort of every fact cost ~0.4 s at 1M): a short list kept in order.
  const before = (a: number, b: number) =>
    rankOf(scores[a]!) - rankOf(scores[b]!) || shape.createdAt[b]! - shape.createdAt[a]! // > 0: a first
  const top: Array<number> = []
  for (let v = 0; v < scores.length; v++) {
    if (shape.retracted[v] === 1) continue
    const rank = rankOf(scores[v]!)
    if (!(rank < afterRank || (rank === afterRank && shape.createdAt[v]! > afterAt))) continue
    if (top.length > options.limit && before(v, top[top.length - 1]!) <= 0) continue
    let at = top.length
    while (at > 0 && before(v, top[at - 1]!) > 0) at--
    top.splice(at, 0, v)
    if (top.length > options.limit + 1) top.pop()
  }
  const facts = yield* factsByNode(db, top.map((v) => shape.node[v]!))
  const rows = top.flatMap((v) => {
    const fact = facts.get(shape.node[v]!)
    return fact === undefined ? [] : [{ fact, score: scores[v]!, rank: rankOf(scores[v]!) }]
  })
  const budget = yield* currentBudget()
  const cut = page(rows, options.limit, (r) => [r.rank, stampOf(r.fact)], budget)
  const result: Page<{ fact: Fact; score: number }> = {
    items: cut.items.map((r) => ({ fact: r.fact, score: r.score })),
    next_cursor: cut.next_cursor
  }
  return result
})

/** One component: its representative, size, first and last stamps, and forked parents (node ids). */
interface Component {
  readonly rep: number
  readonly size: number
  readonly first: number
  readonly last: number
  readonly marked: Array<number>
  readonly known: number
}

/**
 * Connected components over BUILDS_ON and SUPERSEDES, direction ignored (domain/graphRank.ts), on
 * the shape read in bounded statements: one pass, no sort of every fact (~0.4 s at 1M).
 */
const componentsOf = (shape: GraphShape, rep: Int32Array, cap: number): Array<Component> => {
  const byRep = new Map<number, { size: number; first: number; last: number; marked: Array<number> }>()
  for (let v = 0; v < rep.length; v++) {
    const at = shape.createdAt[v]!
    const c = byRep.get(rep[v]!)
    if (c === undefined) {
      byRep.set(rep[v]!, { size: 1, first: at, last: at, marked: shape.marked[v] === 1 ? [shape.node[v]!] : [] })
      continue
    }
    c.size++
    if (at < c.first) c.first = at
    if (at > c.last) c.last = at
    if (shape.marked[v] === 1) c.marked.push(shape.node[v]!)
  }
  return [...byRep].map(([r, c]) => ({ rep: r, ...c, known: Math.min(c.size, cap) }))
}

/** The chosen components' node ids, oldest first, at most `cap` each. */
const membersOf = (shape: GraphShape, rep: Int32Array, chosen: ReadonlyArray<number>, cap: number) => {
  const wanted = new Map(chosen.map((r) => [r, [] as Array<number>]))
  for (let v = 0; v < rep.length; v++) wanted.get(rep[v]!)?.push(v)
  return new Map(
    [...wanted].map(([r, vs]) => [
      r,
      vs.sort((a, b) => shape.createdAt[a]! - shape.createdAt[b]!).slice(0, cap).map((v) => shape.node[v]!)
    ])
  )
}

/** The texts of the clusters' oldest facts (one read for the page). */
const labelsQuery = `UNWIND $nodes AS n MATCH (f) WHERE id(f) = n RETURN n, f.id AS id, f.content AS content`
const LabelRow = Schema.Struct({ n: Schema.Number, id: Schema.String, content: Schema.String })

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
  const shape = yield* readShape(db, { supersedes: true, marked: true })
  const rep = components(shape.parent, shape.supersedes)
  const all = componentsOf(shape, rep, cap)
  const after = options.after ?? null
  const chosen = chooseClusters(all, {
    limit: options.limit,
    perCluster: options.factsPerCluster,
    budget: clusterFactBudget,
    after
  })
  // Facts are read in batches, oldest cluster order first, until the reply budget is spent: long
  // facts fill a reply long before the 2,000 that the fact budget allows.
  const members = membersOf(shape, rep, chosen.map((c) => c.rep), cap)
  const idsOf = chosen.map((c) => members.get(c.rep)!.slice(0, c.take))
  const ids = idsOf.flat()
  const byId = new Map<number, Fact>()
  let cost = 0
  for (let i = 0; i < ids.length && cost <= budget; i += factBatch) {
    for (const [n, fact] of yield* factsByNode(db, ids.slice(i, i + factBatch))) {
      byId.set(n, fact)
      cost += replyCost(fact) + 1
    }
  }
  // The page's labels and open conflicts: the oldest facts' texts, and which forked parents of the
  // chosen clusters have an open conflict (the conflicts query over just those parents).
  const roots = chosen.map((c) => members.get(c.rep)![0]!)
  const labels = new Map(
    (roots.length === 0 ? [] : yield* db.read(labelsQuery, { nodes: roots }, LabelRow)).map((r) => [r.n, r])
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
    label: cutLabel(labels.get(roots[i]!)?.content ?? ""),
    thread: labels.get(roots[i]!)?.id ?? "",
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
