import { Effect, Schema } from "effect"
import { clusterTallies, type ClusterTally } from "../../domain/threadRoots.js"
import type { GraphDatabaseShape } from "../../services/GraphDatabase.js"
import type { ClusterDrift } from "../../services/StoreCheck.js"
import { readShape } from "./graphShape.js"
import { firstsKept } from "./threadClusters.js"

/**
 * Schema 8 (threadClusters.ts) from the edges: every fact's `root`, every root's THREAD self-loop
 * and every cluster's CLUSTER self-loop, and every MARKS edge's root, computed here from the shape
 * read in bounded statements (graphShape.ts) and written `clusterBatch` a statement. It depends on
 * nothing of schema 7. A root's loops are replaced whole by one statement, so a run that stopped
 * part way is made good by the next, and two runs at once write the same. Schema 10 (a cluster's
 * oldest facts kept as [stamp, id] pairs, not stamps) writes the loops alone again: the roots and
 * the marks' roots of 8 stay as they are.
 */
const clusterBatch = 10_000

type Db = Pick<GraphDatabaseShape, "read" | "write">

const rootsWrite = `UNWIND $rows AS r WITH r[0] AS n, r[1] AS rn MATCH (f) WHERE id(f) = n ` +
  `MATCH (x) WHERE id(x) = rn SET f.root = x.id`

const loopsWrite = `UNWIND $rows AS r WITH r[0] AS n, r[1] AS kn, r[2] AS t MATCH (f) WHERE id(f) = n ` +
  `MATCH (k) WHERE id(k) = kn OPTIONAL MATCH (f)-[old]->(f) WHERE type(old) IN ['THREAD', 'CLUSTER'] ` +
  `WITH f, k, t, collect(old) AS olds FOREACH (o IN olds | DELETE o) ` +
  `CREATE (f)-[:THREAD {root: f.id, cluster: k.id}]->(f) ` +
  `FOREACH (_ IN CASE WHEN t IS NULL THEN [] ELSE [1] END | ` +
  `CREATE (f)-[:CLUSTER {rep: f.id, size: t[0], roots: t[1], first: t[2], last: t[3], firsts: t[4]}]->(f))`

const marksWrite = `MATCH (fm:ForkMark) WHERE id(fm) > $after WITH fm LIMIT ${clusterBatch} ` +
  `MATCH (fm)-[m:MARKS]->(p) SET m.root = p.root RETURN max(id(fm)) AS last, count(*) AS n`
const BatchRow = Schema.Struct({ last: Schema.NullOr(Schema.Number), n: Schema.Number })

/** The ids of facts by node id, a statement a batch (the id bound to a plain variable: see schemaVersion.ts). */
const idsQuery = `UNWIND $nodes AS n MATCH (x) WHERE id(x) = n RETURN collect(n) AS a, collect(x.id) AS b`
const IdColumns = Schema.Struct({ a: Schema.Array(Schema.Number), b: Schema.Array(Schema.String) })

const idsOf = Effect.fn("relay/graph/factIdsOf")(function*(db: Db, nodes: ReadonlyArray<number>) {
  const out = new Map<number, string>()
  yield* inBatches(nodes, (batch) =>
    Effect.map(
      db.read(idsQuery, { nodes: [...batch] }, IdColumns),
      (rows) => rows.forEach((r) => r.a.forEach((n, i) => out.set(n, r.b[i]!)))
    ))
  return out
})

/** Each cluster's oldest facts as stored: [stamp, id] pairs (node ids of the shape's indexes looked up). */
const firstPairs = Effect.fn("relay/graph/firstPairs")(function*(
  db: Db,
  node: Int32Array,
  tallies: ReadonlyArray<ClusterTally>
) {
  const ids = yield* idsOf(db, tallies.flatMap((t) => t.firstFacts.map((v) => node[v]!)))
  return new Map(
    tallies.map((t) => [t.rep, t.firsts.map((at, i) => [at, ids.get(node[t.firstFacts[i]!]!) ?? ""] as const)])
  )
})

const inBatches = <A, E>(rows: ReadonlyArray<A>, write: (batch: ReadonlyArray<A>) => Effect.Effect<void, E>) =>
  Effect.forEach(
    Array.from(
      { length: Math.ceil(rows.length / clusterBatch) },
      (_, i) => rows.slice(i * clusterBatch, (i + 1) * clusterBatch)
    ),
    write,
    { discard: true }
  )

/** What the edges say: the shape, each fact's root, each root's cluster and the clusters' tallies. */
const expected = (db: Db) =>
  Effect.map(readShape(db, { supersedes: true }), (shape) => ({
    shape,
    ...clusterTallies(shape.parent, shape.createdAt, shape.supersedes, firstsKept)
  }))

export const buildClusters = Effect.fn("relay/graph/buildClusters")(function*(
  db: Db,
  only: "everything" | "loops" = "everything"
) {
  const { repOf, root, shape, tallies } = yield* expected(db)
  const node = shape.node
  const write = (cypher: string) => (rows: ReadonlyArray<unknown>) => db.write(cypher, { rows: rows as never })
  if (only === "everything") yield* inBatches(Array.from(root, (r, v) => [node[v]!, node[r]!]), write(rootsWrite))
  const tallyOf = new Map(tallies.map((t) => [t.rep, t]))
  const pairs = yield* firstPairs(db, node, tallies)
  const loops: Array<unknown> = []
  for (let v = 0; v < root.length; v++) {
    if (root[v] !== v) continue
    const t = tallyOf.get(v)
    loops.push([
      node[v]!,
      node[repOf[v]!]!,
      t === undefined ? null : [t.size, t.roots, t.first, t.last, pairs.get(v) ?? []]
    ])
  }
  yield* inBatches(loops, write(loopsWrite))
  for (let after = -1; only === "everything";) {
    const row = (yield* db.write(marksWrite, { after }, BatchRow))[0]
    if (row === undefined || row.last === null || row.n < clusterBatch) break
    after = row.last
  }
})

/** Stored roots, by node id range: each fact's node and its stored root's node (-1: none or no such fact). */
const storedRootsQuery = `MATCH (f:Fact) WHERE id(f) >= $lo AND id(f) < $hi OPTIONAL MATCH (r:Fact {id: f.root}) ` +
  `RETURN collect(id(f)) AS a, collect(coalesce(id(r), -1)) AS b`
const storedThreadsQuery = `MATCH (f:Fact)-[t:THREAD]->(f) WHERE id(f) >= $lo AND id(f) < $hi ` +
  `OPTIONAL MATCH (k:Fact {id: t.cluster}) RETURN collect(id(f)) AS a, collect(coalesce(id(k), -1)) AS b`
const Columns = Schema.Struct({ a: Schema.Array(Schema.Number), b: Schema.Array(Schema.Number) })
const storedTalliesQuery = `MATCH (k:Fact)-[c:CLUSTER]->(k) WHERE id(k) >= $lo AND id(k) < $hi ` +
  `RETURN id(k) AS k, c.size AS size, c.roots AS roots, c.first AS first, c.last AS last, c.firsts AS firsts`
const TallyRow = Schema.Struct({
  k: Schema.Number,
  size: Schema.Number,
  roots: Schema.Number,
  first: Schema.Number,
  last: Schema.Number,
  firsts: Schema.Array(Schema.Tuple(Schema.Number, Schema.String))
})
const clusterCount = `MATCH ()-[c:CLUSTER]->() RETURN count(c) AS n`

/**
 * check-db --verify: recomputes threads and clusters from the edges and compares what is stored:
 * every fact's root, every root's cluster (the stored partition must be the computed one), every
 * cluster's tally, and that there is one CLUSTER edge a cluster.
 */
export const clusterDrift = Effect.fn("relay/factStore/clusterDrift")(function*(db: Db) {
  const { repOf, root, shape, tallies } = yield* expected(db)
  const node = shape.node
  const pairs = yield* firstPairs(db, node, tallies)
  const top = node.length === 0 ? 0 : node[node.length - 1]! + 1
  const storedRoot = new Map<number, number>()
  const storedRep = new Map<number, number>()
  const storedTally = new Map<number, typeof TallyRow.Type>()
  for (let lo = 0; lo < top; lo += clusterBatch) {
    const range = { lo, hi: lo + clusterBatch }
    for (const r of yield* db.read(storedRootsQuery, range, Columns)) r.a.forEach((f, i) => storedRoot.set(f, r.b[i]!))
    for (const r of yield* db.read(storedThreadsQuery, range, Columns)) r.a.forEach((f, i) => storedRep.set(f, r.b[i]!))
    for (const t of yield* db.read(storedTalliesQuery, range, TallyRow)) storedTally.set(t.k, t)
  }
  const examples: Array<string> = []
  let drifted = 0
  const drift = (what: string) => {
    drifted++
    if (examples.length < 5) examples.push(what)
  }
  for (let v = 0; v < root.length; v++) {
    if (storedRoot.get(node[v]!) !== node[root[v]!]) {
      drift(`fact node ${node[v]} stores another thread root than its edges give`)
    }
  }
  // The stored partition: the roots of one computed cluster share one stored representative, used by no other.
  const storedOf = new Map<number, number>()
  const claimed = new Map<number, number>()
  for (let v = 0; v < root.length; v++) {
    if (root[v] !== v) continue
    const k = storedRep.get(node[v]!) ?? -1
    const want = repOf[v]!
    const had = storedOf.get(want)
    if (had === undefined) storedOf.set(want, k)
    else if (had !== k) {
      drift(`root node ${node[v]} is not in the stored cluster of the roots its SUPERSEDES edges join it to`)
    }
    if (claimed.has(k) && claimed.get(k) !== want) drift(`cluster of node ${k} holds roots of two clusters`)
    claimed.set(k, want)
  }
  for (const t of tallies) {
    const k = storedOf.get(t.rep) ?? -1
    const s = storedTally.get(k)
    if (
      s === undefined || s.size !== t.size || s.roots !== t.roots || s.first !== t.first || s.last !== t.last ||
      s.firsts.join(";") !== (pairs.get(t.rep) ?? []).join(";")
    ) {
      drift(
        `the cluster of node ${node[t.rep]} stores ${
          s === undefined ? "no tally" : `size ${s.size}, ${s.roots} roots`
        }; ` +
          `its edges give size ${t.size}, ${t.roots} roots`
      )
    }
  }
  const stored = (yield* db.read(clusterCount, {}, Schema.Struct({ n: Schema.Number })))[0]?.n ?? 0
  if (stored !== tallies.length) drift(`${stored} CLUSTER edges for ${tallies.length} clusters`)
  const result: ClusterDrift = { clusters: tallies.length, drifted, examples }
  return result
})
