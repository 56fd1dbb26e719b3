import { Effect, Schema } from "effect"
import type { GraphDatabaseShape } from "../../services/GraphDatabase.js"

/**
 * The whole memory's shape, for importance and clusters (domain/graphRank.ts): every fact's node
 * id, parent, stamp and two flags, and every SUPERSEDES pair, numbered 0..n-1 in node id order.
 * Read in statements of `shapeBatch` node ids, each bounded whatever the graph holds, so the
 * database is never held for the whole graph: other clients' statements run between them (at 1M
 * facts FalkorDB's own algo.pageRank held it 1.1-1.4 s, algo.WCC past the 2 s timeout). The cost
 * moves to the caller: the reads are linear in the graph (docs/design/performance.md).
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

export const shapeBatch = 5_000

const Nums = Schema.Array(Schema.Number)
const ColumnsRow = Schema.Struct({ a: Nums, b: Nums })
const range = "id(f) >= $lo AND id(f) < $hi"

/**
 * The next `shapeBatch` facts after the node id `$after`, in id order (the label scan walks ids in
 * order): batches of whole facts, whatever other nodes (search terms, marks) sit between their ids,
 * and no scan of every fact for the highest id first (184 ms at 1M). Columns as collect()ed lists,
 * one row a statement: a row a fact, each decoded on its own, cost ~2 s more at 1M.
 */
const factsQuery = `MATCH (f:Fact) WHERE id(f) > $after WITH f LIMIT ${shapeBatch} ` +
  // collect() leaves nulls out: a fact without a stamp (written by hand) counts as the oldest, so the
  // columns stay aligned and no NaN reaches a statement (the migration to schema 8 writes stamps).
  `RETURN collect(id(f)) AS a, collect(coalesce(f.created_at, 0)) AS b`

/** One statement a column over the batch's id range, each one hop. */
const parentsQuery = `MATCH (f:Fact)-[:BUILDS_ON]->(p) WHERE ${range} RETURN collect(id(f)) AS a, collect(id(p)) AS b`
const losersQuery = `MATCH (f:Fact)-[:SUPERSEDES]->(l) WHERE ${range} RETURN collect(id(f)) AS a, collect(id(l)) AS b`

/**
 * The retracted and the marked facts, from their Retraction and ForkMark nodes in keyset batches
 * (few next to the facts: a scan of their own label, not one hop from every fact).
 */
const retractedQuery = `MATCH (x:Retraction) WHERE id(x) > $after WITH x LIMIT ${shapeBatch} ` +
  `OPTIONAL MATCH (x)-[:RETRACTS]->(f) RETURN id(x) AS a, id(f) AS b`
const markedQuery = `MATCH (x:ForkMark) WHERE id(x) > $after WITH x LIMIT ${shapeBatch} ` +
  `OPTIONAL MATCH (x)-[:MARKS]->(f) RETURN id(x) AS a, id(f) AS b`

const KeyRow = Schema.Struct({ a: Schema.Number, b: Schema.NullOr(Schema.Number) })

/** Every [a, b] of a keyset query, `shapeBatch` keys at a time. */
const keyset = (db: Pick<GraphDatabaseShape, "read">, query: string) =>
  Effect.gen(function*() {
    const out: Array<readonly [number, number]> = []
    for (let after = -1;;) {
      const rows = yield* db.read(query, { after }, KeyRow)
      for (const r of rows) if (r.b !== null) out.push([r.a, r.b])
      if (rows.length < shapeBatch) return out
      after = rows[rows.length - 1]!.a
    }
  })

/** Which columns a caller needs beyond the facts, their stamps and parents. */
export interface ShapeColumns {
  readonly supersedes?: boolean
  readonly retracted?: boolean
  readonly marked?: boolean
}

export const readShape = Effect.fn("relay/factStore/readShape")(function*(
  db: Pick<GraphDatabaseShape, "read">,
  columns: ShapeColumns
) {
  const nodes: Array<number> = []
  const stamps: Array<number> = []
  const links: Array<readonly [number, number]> = []
  const losses: Array<readonly [number, number]> = []
  const retractedNodes: Array<number> = []
  const markedNodes: Array<number> = []
  const pairs = (rows: ReadonlyArray<{ readonly a: ReadonlyArray<number>; readonly b: ReadonlyArray<number> }>) =>
    rows.flatMap((r) => r.a.map((x, i) => [x, r.b[i]!] as const))
  for (let after = -1;;) {
    const facts = (yield* db.read(factsQuery, { after }, ColumnsRow))[0]
    if (facts === undefined || facts.a.length === 0) break
    for (let i = 0; i < facts.a.length; i++) {
      nodes.push(facts.a[i]!)
      stamps.push(facts.b[i]!)
    }
    const batch = { lo: after + 1, hi: facts.a[facts.a.length - 1]! + 1 }
    links.push(...pairs(yield* db.read(parentsQuery, batch, ColumnsRow)))
    if (columns.supersedes === true) losses.push(...pairs(yield* db.read(losersQuery, batch, ColumnsRow)))
    if (facts.a.length < shapeBatch) break
    after = batch.hi - 1
  }
  if (columns.retracted === true) retractedNodes.push(...(yield* keyset(db, retractedQuery)).map(([, f]) => f))
  if (columns.marked === true) markedNodes.push(...(yield* keyset(db, markedQuery)).map(([, f]) => f))
  const index = new Map<number, number>()
  nodes.forEach((n, i) => index.set(n, i))
  const parent = new Int32Array(nodes.length).fill(-1)
  for (const [c, p] of links) {
    const ci = index.get(c)
    const pi = index.get(p)
    if (ci !== undefined && pi !== undefined) parent[ci] = pi
  }
  const flags = (list: ReadonlyArray<number>) => {
    const out = new Uint8Array(nodes.length)
    for (const n of list) {
      const i = index.get(n)
      if (i !== undefined) out[i] = 1
    }
    return out
  }
  const shape: GraphShape = {
    node: Int32Array.from(nodes),
    parent,
    createdAt: Float64Array.from(stamps),
    retracted: flags(retractedNodes),
    marked: flags(markedNodes),
    supersedes: losses.flatMap(([w, l]) => {
      const a = index.get(w)
      const b = index.get(l)
      return a === undefined || b === undefined ? [] : [[a, b] as const]
    })
  }
  return shape
})
