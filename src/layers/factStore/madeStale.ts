import { Effect, Schema } from "effect"
import { chainBudgetBytes, type PageRequest } from "../../domain/chainPaging.js"
import { after, type ImpactKey, impactKey, type Placed, placeDescendants } from "../../domain/descendants.js"
import { noFactWithId } from "../../domain/errors.js"
import type { Dependent } from "../../domain/fact.js"
import { currentBudget, page } from "../../domain/paging.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { pageFactsQuery } from "./pageFacts.js"
import { statusFrom, storedFields } from "./projection.js"
import { staleAt } from "./staleness.js"

/**
 * What the decision stamped `$at` on x made stale (domain/model/revision.ts, madeStale): x's subtree
 * as it stood then, and for x and each dependent whether a SUPERSEDES or RETRACTS stamped before it
 * already tainted them. When x or a fact above it was tainted before, everything below was stale
 * already and nothing is listed; otherwise a dependent was made stale unless a fact between x and it
 * was tainted before. Same shape as impact's subtree (four numbers an edge, no fact mapped), with
 * each dependent's flags now for the status it is shown with. The comprehension variables are named
 * apart (FalkorDB 4.16 binds one once a query).
 */
export const madeStaleQuery = `MATCH (x:Fact {id: $id}) ` +
  `WITH x, size([(x)<-[x_t:SUPERSEDES|RETRACTS]-(x_by) WHERE x_t.created_at < $at | 1]) > 0 OR ` +
  `${staleAt("x")} < $at AS tainted ` +
  `OPTIONAL MATCH (x)<-[:BUILDS_ON*0..]-(p)<-[:BUILDS_ON]-(d) WHERE d.created_at <= $at ` +
  `RETURN id(x) AS root, tainted, ` +
  `collect(CASE WHEN d IS NULL THEN NULL ELSE [id(p), id(d), d.created_at, ` +
  `size([(d)<-[d_t:SUPERSEDES|RETRACTS]-(d_by) WHERE d_t.created_at < $at | 1]), ` +
  `indegree(d, 'SUPERSEDES'), indegree(d, 'RETRACTS')] END) AS edges`

const Row = Schema.Struct({
  root: Schema.Number,
  tainted: Schema.Boolean,
  /** [parent node, child node, child's created_at, taints before $at, SUPERSEDES now, RETRACTS now] */
  edges: Schema.Array(
    Schema.Tuple(Schema.Number, Schema.Number, Schema.Number, Schema.Number, Schema.Number, Schema.Number)
  )
})

const PageFactRow = Schema.Struct({
  node: Schema.Number,
  fact: Schema.Struct({ ...storedFields, parent_id: Schema.String })
})

/** A page of what the revision stamped `at` made stale, in impact order, with how many there are in all. */
export const madeStale = Effect.fn("relay/factStore/madeStale")(function*(
  db: GraphDatabase["Type"],
  id: string,
  at: number,
  request: PageRequest<ImpactKey>,
  field = "fact_id"
) {
  const found = (yield* db.read(madeStaleQuery, { id, at }, Row))[0]
  if (found === undefined) return yield* noFactWithId(field, id)
  const now = new Map(found.edges.map(([, child, , , superseded, retracted]) => [child, { superseded, retracted }]))
  // Placed as the subtree stood just before `at`: `stale` there means it was stale already.
  const placed: ReadonlyArray<Placed> = found.tainted ? [] : placeDescendants(
    found.root,
    false,
    found.edges.map(([parent, child, createdAt, before]) => ({
      parent,
      child,
      createdAt,
      superseded: before > 0,
      retracted: false
    }))
  ).filter((p) => !p.stale)
  const wanted = after(placed, request.cursor, request.limit + 1)
  const rows = wanted.length === 0 ?
    [] :
    yield* db.read(pageFactsQuery, { rows: wanted.map((p) => [p.node, p.parent]) }, PageFactRow)
  const byNode = new Map(rows.map((r) => [r.node, r.fact]))
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
    (d) => [...keys.get(d.fact.id)!, at],
    yield* currentBudget(chainBudgetBytes)
  )
  return { items, next_cursor, total: placed.length }
})
