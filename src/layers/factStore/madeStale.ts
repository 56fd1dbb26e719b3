import { Effect, Schema } from "effect"
import { chainBudgetBytes, impactNumbers, type PageRequest } from "../../domain/chainPaging.js"
import { after, type ImpactKey, impactKey, type Placed, placeDescendants } from "../../domain/descendants.js"
import { noFactWithId } from "../../domain/errors.js"
import type { Dependent } from "../../domain/fact.js"
import { currentBudget, page } from "../../domain/paging.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { anyMerge, leanUnlessMerged, type MergeGate } from "./mergeGate.js"
import { pageFacts } from "./pageFacts.js"
import { statusFrom } from "./projection.js"
import { staleBy } from "./staleness.js"
import { edgesThroughMerges, hubsOf } from "./walkDown.js"

/**
 * What the decision stamped `$at` on x made stale (domain/model/revision.ts, madeStale): x's subtree
 * as it stood then, each dependent marked when it is stale as of `$at` and was not just before.
 * The stored stamps and the spans a confirmation closed answer both times (staleness.ts), so a
 * dependent that was current again by a confirmation, under an x already retracted, is listed too.
 * Same shape as impact's subtree (four numbers an edge, no fact mapped), with each dependent's flags
 * now for the status it is shown with. `$until` (the stamp of a revision's last still_holds
 * confirmation, else `$at`) leaves out what those confirmations made current again.
 */
const madeEdge = (p: string, d: string) =>
  `[id(${p}), id(${d}), ${d}.created_at, ` +
  `CASE WHEN ${staleBy(d, "$at")} AND NOT ${staleBy(d, "($at - 1)")} AND ${staleBy(d, "$until")} THEN 1 ELSE 0 END, ` +
  `indegree(${d}, 'SUPERSEDES'), indegree(${d}, 'RETRACTS')]`

export const madeStaleQuery = `MATCH (x:Fact {id: $id}) ` +
  `OPTIONAL MATCH (x)<-[:BUILDS_ON*0..]-(p)<-[:BUILDS_ON]-(d) WHERE d.created_at <= $at ` +
  `WITH x, collect(CASE WHEN d IS NULL THEN NULL ELSE ${madeEdge("p", "d")} END) AS tree, ` +
  // What builds on the subtree through extra parents (walkDown.ts): usually nothing.
  `${hubsOf("d")} + CASE WHEN indegree(x, 'ALSO_ON') > 0 THEN [x] ELSE [] END AS hubs ` +
  edgesThroughMerges("hubs", "more", ["x", "tree"], madeEdge, (c) => `${c}.created_at <= $at`) +
  `RETURN id(x) AS root, tree + more AS edges`

/** The same without the rounds, for a graph without merges (mergeGate.ts), saying `merged`. */
export const leanMadeStaleQuery = `MATCH (x:Fact {id: $id}) ${anyMerge(["x"])}` +
  `OPTIONAL MATCH (x)<-[:BUILDS_ON*0..]-(p)<-[:BUILDS_ON]-(d) WHERE d.created_at <= $at ` +
  `RETURN id(x) AS root, collect(CASE WHEN d IS NULL THEN NULL ELSE ${madeEdge("p", "d")} END) AS edges, merged`

const Row = Schema.Struct({
  root: Schema.Number,
  merged: Schema.optional(Schema.Boolean),
  /** [parent node, child node, child's created_at, made stale at $at (1) or not, SUPERSEDES now, RETRACTS now] */
  edges: Schema.Array(
    Schema.Tuple(Schema.Number, Schema.Number, Schema.Number, Schema.Number, Schema.Number, Schema.Number)
  )
})

/** A page of what the revision stamped `at` made stale, in impact order, with how many there are in all. */
export const madeStale = Effect.fn("relay/factStore/madeStale")(function*(
  db: GraphDatabase["Type"],
  gate: MergeGate,
  id: string,
  at: number,
  request: PageRequest<ImpactKey>,
  field = "fact_id",
  until = at
) {
  const found = (yield* leanUnlessMerged(
    gate,
    db.read(leanMadeStaleQuery, { id, at, until }, Row),
    db.read(madeStaleQuery, { id, at, until }, Row)
  ))[0]
  if (found === undefined) return yield* noFactWithId(field, id)
  const now = new Map(found.edges.map(([, child, , , superseded, retracted]) => [child, { superseded, retracted }]))
  const made = new Set(found.edges.filter(([, , , m]) => m === 1).map(([, child]) => child))
  // Placed (distance, order) as the subtree stood at `at`; only what this decision made stale is kept.
  const placed: ReadonlyArray<Placed> = placeDescendants(
    found.root,
    found.edges.map(([parent, child, createdAt]) => ({
      parent,
      child,
      createdAt,
      superseded: false,
      retracted: false,
      stale: true
    }))
  ).filter((p) => made.has(p.node))
  const wanted = after(placed, request.cursor, request.limit + 1)
  const byNode = yield* pageFacts(db, wanted.map((p) => p.node))
  const keys = new Map<string, ImpactKey>()
  const dependents = wanted.flatMap((p): Array<Dependent> => {
    const fact = byNode.get(p.node)
    if (fact === undefined) return []
    keys.set(fact.id, impactKey(p))
    const flags = now.get(p.node)!
    return [{
      fact: {
        ...fact,
        status: statusFrom({ superseded: flags.superseded > 0, retracted: flags.retracted > 0, stale: true })
      },
      distance: p.distance
    }]
  })
  const { items, next_cursor } = page(
    dependents,
    request.limit,
    (d) => impactNumbers({ ...keys.get(d.fact.id)!, revision: at, until }),
    yield* currentBudget(chainBudgetBytes)
  )
  return { items, next_cursor, total: placed.length }
})
