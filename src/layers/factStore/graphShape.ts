import { Effect, Schema } from "effect"
import type { GraphDatabase } from "../../services/GraphDatabase.js"

/**
 * The whole memory's shape, for importance and clusters (domain/graphRank.ts): every fact's node
 * id, parent, stamp and two flags, and every SUPERSEDES pair, numbered 0..n-1 in node id order.
 * Read in statements of `shapeBatch` node ids, each bounded whatever the graph holds, so the
 * database is never held for the whole graph: other clients' statements run between them (at 1M
 * facts FalkorDB's own algo.pageRank held it 1.1-1.4 s, algo.WCC past the 2 s timeout). The cost
 * moves to the caller: the reads are linear in the graph (see README, "What a call costs").
 */
export interface GraphShape {
  readonly node: Int32Array
  /** Index of the fact's BUILDS_ON target, -1 for a root. */
  readonly parent: Int32Array
  readonly createdAt: Float64Array
  readonly retracted: Uint8Array
  /** A ForkMark points at it: a forked parent. */
  readonly marked: Uint8Array
  /** [winner, loser] indexes. */
  readonly supersedes: ReadonlyArray<readonly [number, number]>
}

export const shapeBatch = 20_000

const TopRow = Schema.Struct({ top: Schema.NullOr(Schema.Number) })
const topQuery = "MATCH (f:Fact) RETURN max(id(f)) AS top"

const Nums = Schema.Array(Schema.Number)
const FactsRow = Schema.Struct({ node: Nums, parent: Nums, at: Nums, retracted: Nums, marked: Nums })
const factsQuery = `MATCH (f:Fact) WHERE id(f) >= $lo AND id(f) < $hi ` +
  `OPTIONAL MATCH (f)-[:BUILDS_ON]->(p) ` +
  `RETURN collect(id(f)) AS node, collect(coalesce(id(p), -1)) AS parent, collect(f.created_at) AS at, ` +
  `collect(indegree(f, 'RETRACTS')) AS retracted, collect(indegree(f, 'MARKS')) AS marked`

const LinksRow = Schema.Struct({ from: Nums, to: Nums })
const linksQuery = `MATCH (w:Fact)-[:SUPERSEDES]->(l) WHERE id(w) >= $lo AND id(w) < $hi ` +
  `RETURN collect(id(w)) AS from, collect(id(l)) AS to`

export const readShape = Effect.fn("relay/factStore/readShape")(function*(db: GraphDatabase["Type"]) {
  const top = (yield* db.read(topQuery, {}, TopRow))[0]?.top ?? null
  const nodes: Array<number> = []
  const parents: Array<number> = []
  const stamps: Array<number> = []
  const retracted: Array<number> = []
  const marked: Array<number> = []
  const pairs: Array<readonly [number, number]> = []
  for (let lo = 0; top !== null && lo <= top; lo += shapeBatch) {
    const range = { lo, hi: lo + shapeBatch }
    const [facts] = yield* db.read(factsQuery, range, FactsRow)
    if (facts !== undefined) {
      nodes.push(...facts.node)
      parents.push(...facts.parent)
      stamps.push(...facts.at)
      retracted.push(...facts.retracted)
      marked.push(...facts.marked)
    }
    const [links] = yield* db.read(linksQuery, range, LinksRow)
    if (links !== undefined) { for (let i = 0; i < links.from.length; i++) pairs.push([links.from[i]!, links.to[i]!]) }
  }
  const index = new Map<number, number>()
  nodes.forEach((n, i) => index.set(n, i))
  const shape: GraphShape = {
    node: Int32Array.from(nodes),
    parent: Int32Array.from(parents, (p) => (p < 0 ? -1 : index.get(p) ?? -1)),
    createdAt: Float64Array.from(stamps),
    retracted: Uint8Array.from(retracted, (r) => (r > 0 ? 1 : 0)),
    marked: Uint8Array.from(marked, (m) => (m > 0 ? 1 : 0)),
    supersedes: pairs.flatMap(([w, l]) => {
      const a = index.get(w)
      const b = index.get(l)
      return a === undefined || b === undefined ? [] : [[a, b] as const]
    })
  }
  return shape
})
