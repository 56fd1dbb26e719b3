import { Effect, Schema } from "effect"
import { chainBudgetBytes, type ImpactCursor, impactNumbers, type PageRequest } from "../../domain/chainPaging.js"
import { after, type ImpactKey, impactKey, placeDescendants } from "../../domain/descendants.js"
import { noFactWithId } from "../../domain/errors.js"
import type { Dependent } from "../../domain/fact.js"
import { currentBudget, page } from "../../domain/paging.js"
import type { Page } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { madeStale } from "./madeStale.js"
import { anyMerge, leanUnlessMerged, type MergeGate } from "./mergeGate.js"
import { pageFacts } from "./pageFacts.js"
import { statusFrom } from "./projection.js"
import { staleNow } from "./staleness.js"
import { edgesThroughMerges, hubsOf } from "./walkDown.js"

/**
 * The subtree below x as edges between node ids, with each child's status flags (its staleness as
 * stored): all impact needs to place every dependent (domain/descendants.ts). Each row is six
 * numbers, and no fact is mapped here. A later page reads the whole subtree: the order (distance, then age) is
 * only known once every dependent is placed. The first page reads only the levels it can hold
 * (`firstPageDepth`): levels are never empty above a non-empty one, so the first `take` dependents
 * lie within `take` levels of x (a write's `stale` reply over 200,000 dependents read them all),
 * and each round through merges reads as many levels below its merges (a 20,000 chain under four
 * nested merges: 80,000 edges, 1.9 MB, for a page of 10).
 */
const impactEdge = (p: string, d: string) =>
  `[id(${p}), id(${d}), ${d}.created_at, indegree(${d}, 'SUPERSEDES'), indegree(${d}, 'RETRACTS'), ` +
  `CASE WHEN ${staleNow(d)} THEN 1 ELSE 0 END]`

export const subtreeQuery = (depth: number | null) =>
  `MATCH (x:Fact {id: $id}) ` +
  `OPTIONAL MATCH (x)<-[:BUILDS_ON*0..${depth === null ? "" : depth - 1}]-(p)<-[:BUILDS_ON]-(d) ` +
  `WITH x, collect(CASE WHEN d IS NULL THEN NULL ELSE ${impactEdge("p", "d")} END) AS tree, ` +
  // What builds on the subtree through extra parents (walkDown.ts): usually nothing.
  `${hubsOf("d")} + CASE WHEN indegree(x, 'ALSO_ON') > 0 THEN [x] ELSE [] END AS hubs ` +
  // A merge is at least one level below x, so the levels of its walk a first page needs are fewer still.
  edgesThroughMerges("hubs", "more", ["x", "tree"], impactEdge, undefined, depth) +
  `RETURN id(x) AS root, tree + more AS edges`

/** The subtree without the rounds, for a graph without merges (mergeGate.ts), saying `merged`. */
export const leanSubtreeQuery = (depth: number | null) =>
  `MATCH (x:Fact {id: $id}) ${anyMerge(["x"])}` +
  `OPTIONAL MATCH (x)<-[:BUILDS_ON*0..${depth === null ? "" : depth - 1}]-(p)<-[:BUILDS_ON]-(d) ` +
  `RETURN id(x) AS root, collect(CASE WHEN d IS NULL THEN NULL ELSE ${impactEdge("p", "d")} END) AS edges, merged`

/** Levels a first page of `take` reads, in a few sizes so FalkorDB caches a few plans (take is at most 501). */
export const firstPageDepth = (take: number): number => [8, 32, 128, 512].find((d) => d >= take) ?? take

const SubtreeRow = Schema.Struct({
  root: Schema.Number,
  merged: Schema.optional(Schema.Boolean),
  /** [parent node, child node, child's created_at, SUPERSEDES into it, RETRACTS into it, stale (1) or not] */
  edges: Schema.Array(
    Schema.Tuple(Schema.Number, Schema.Number, Schema.Number, Schema.Number, Schema.Number, Schema.Number)
  )
})

export const impact = Effect.fn("relay/factStore/impact")(function*(
  db: GraphDatabase["Type"],
  gate: MergeGate,
  id: string,
  request: PageRequest<ImpactCursor>,
  field = "fact_id"
) {
  const cursor = request.cursor
  if (cursor !== null && "revision" in cursor) {
    const stale = { limit: request.limit, cursor: impactKey(cursor) }
    const made = yield* madeStale(db, gate, id, cursor.revision, stale, field, cursor.until)
    return { items: made.items, next_cursor: made.next_cursor } satisfies Page<Dependent>
  }
  const depth = cursor === null ? firstPageDepth(request.limit + 1) : null
  const found = (yield* leanUnlessMerged(
    gate,
    db.read(leanSubtreeQuery(depth), { id }, SubtreeRow),
    db.read(subtreeQuery(depth), { id }, SubtreeRow)
  ))[0]
  if (found === undefined) return yield* noFactWithId(field, id)
  const placed = placeDescendants(
    found.root,
    found.edges.map(([parent, child, createdAt, superseded, retracted, stale]) => ({
      parent,
      child,
      createdAt,
      superseded: superseded > 0,
      retracted: retracted > 0,
      stale: stale > 0
    }))
  )
  const wanted = after(placed, cursor, request.limit + 1)
  if (wanted.length === 0) return { items: [], next_cursor: null } satisfies Page<Dependent>
  const byNode = yield* pageFacts(db, wanted.map((p) => p.node))
  const keys = new Map<string, ImpactKey>()
  const dependents = wanted.flatMap((p): Array<Dependent> => {
    const fact = byNode.get(p.node)
    if (fact === undefined) return []
    keys.set(fact.id, impactKey(p))
    return [{
      fact: { ...fact, status: statusFrom(p) },
      distance: p.distance
    }]
  })
  const { items, next_cursor } = page(
    dependents,
    request.limit,
    (d) => impactNumbers(keys.get(d.fact.id)!),
    yield* currentBudget(chainBudgetBytes)
  )
  return { items, next_cursor } satisfies Page<Dependent>
})
