import { Effect, Schema } from "effect"
import type { Fact } from "../../domain/fact.js"
import { ImportantCursor, pageRank } from "../../domain/graphRank.js"
import { currentBudget, page } from "../../domain/paging.js"
import type { ImportantOptions, Page } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { readShape } from "./graphShape.js"
import { FactFromRow, factMap, stampOf } from "./projection.js"
import { rankOf } from "./rankGenerations.js"

/** Facts by node id, in the order asked (unlabelled, so the id is sought: see currentState.ts). */
export const factsByNodeQuery = `UNWIND $nodes AS n MATCH (f) WHERE id(f) = n RETURN n, ${factMap("f")} AS fact`
const NodeFactRow = Schema.Struct({ n: Schema.Number, fact: FactFromRow })

const factsByNode = (db: GraphDatabase["Type"], nodes: ReadonlyArray<number>) =>
  nodes.length === 0 ? Effect.succeed(new Map<number, Fact>()) : Effect.map(
    db.read(factsByNodeQuery, { nodes }, NodeFactRow),
    (rows) => new Map(rows.map((r) => [r.n, r.fact]))
  )

/** A row's place in the ranking, as the cursor holds it. */
export const importantPlace = (r: { readonly rank: number; readonly fact: Fact }) =>
  ImportantCursor.wire({ rank: r.rank, at: stampOf(r.fact) })

/**
 * PageRank over BUILDS_ON (domain/graphRank.ts) on the shape read in bounded statements, now: for a
 * memory with no materialised generation yet (importantPage.ts). Ties: older first. A retracted fact
 * keeps its place in the rank of others but is not listed. Pages go by keyset on (rank, created_at).
 */
export const importantNow = Effect.fn("relay/factStore/importantNow")(function*(
  db: GraphDatabase["Type"],
  options: ImportantOptions
) {
  const shape = yield* readShape(db, { retracted: true })
  const scores = pageRank(shape.parent)
  const afterRank = options.after?.rank ?? Number.MAX_SAFE_INTEGER
  const afterAt = options.after?.at ?? 0
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
  const cut = page(rows, options.limit, importantPlace, budget)
  const result: Page<{ fact: Fact; score: number }> = {
    items: cut.items.map((r) => ({ fact: r.fact, score: r.score })),
    next_cursor: cut.next_cursor
  }
  return result
})
