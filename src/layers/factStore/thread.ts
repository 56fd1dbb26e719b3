import { Effect, Schema } from "effect"
import { noFactWithId } from "../../domain/errors.js"
import { Stamp } from "../../domain/time.js"
import type { ThreadPage, ThreadRequest } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { FactColumn, factMap } from "./projection.js"

/**
 * A thread: the tree of facts under one root (the root of the given fact's chain, which each fact
 * stores: threadClusters.ts), oldest first, a page at a time (keyset on created_at), with the
 * decisions that touch the page's facts. The facts are read through the Fact.root index, no walk.
 * As of a time: facts and decisions stamped after it are left out and statuses are derived from
 * what remained.
 */
const rootQuery = `MATCH (f:Fact {id: $id}) WHERE $asOf IS NULL OR f.created_at <= $asOf RETURN f.root AS root`

const factsQuery = (asOf: boolean) =>
  `MATCH (f:Fact) WHERE f.root = $root ` +
  `AND f.created_at > $after${asOf ? " AND f.created_at <= $asOf" : ""} ` +
  `WITH f ORDER BY f.created_at LIMIT $limit ` +
  `RETURN ${factMap("f", asOf)} AS fact`

const decisionsQuery = `UNWIND $ids AS id MATCH (a:Fact {id: id})-[r:SUPERSEDES]-(b:Fact) ` +
  `WHERE $asOf IS NULL OR r.created_at <= $asOf ` +
  `WITH DISTINCT r, startNode(r) AS w, endNode(r) AS l ` +
  `RETURN w.id AS winner_id, l.id AS loser_id, r.reason AS reason, r.resolved_by AS resolved_by, ` +
  `r.created_at AS created_at ORDER BY created_at LIMIT $most`

const RootRow = Schema.Struct({ root: Schema.String })
const DecisionRow = Schema.Struct({
  winner_id: Schema.String,
  loser_id: Schema.String,
  reason: Schema.String,
  resolved_by: Schema.String,
  created_at: Stamp
})

export const thread = Effect.fn("relay/factStore/thread")(
  function*(db: GraphDatabase["Type"], request: ThreadRequest) {
    const asOf = request.asOf ?? null
    const roots = yield* db.read(rootQuery, { id: request.factId, asOf }, RootRow)
    const root = roots[0]?.root
    if (root === undefined) return yield* noFactWithId("fact_id", request.factId)
    const rows = yield* db.read(factsQuery(asOf !== null), {
      root,
      after: request.after ?? -8.64e15,
      asOf,
      limit: request.limit + 1
    }, FactColumn)
    const facts = rows.slice(0, request.limit).map((r) => r.fact)
    const decisions = facts.length === 0 ? [] : yield* db.read(decisionsQuery, {
      ids: facts.map((f) => f.id),
      asOf,
      most: 4 * request.limit
    }, DecisionRow)
    const page: ThreadPage = {
      rootId: root,
      facts,
      decisions,
      more: rows.length > request.limit
    }
    return page
  }
)
