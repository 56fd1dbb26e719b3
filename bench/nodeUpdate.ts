/**
 * `npm run bench:node-updates`: what FalkorDB charges for a node's property update after a node is
 * created, on a graph of `NODES` nodes (default 1,000,000) in a FalkorDB at `BENCH_PORT` (default
 * 6399: one you started). Each row alternates two statements 30 times and prints the server's own
 * time (p50) of each. In FalkorDB 4.16 the first node update after a labelled node is created costs
 * in proportion to the graph's nodes; an edge's update, a read, or an update after an unlabelled or
 * edge create does not (docs/design/performance.md: why Relay keeps counters on edges).
 */
import { FalkorDB } from "falkordb"
import { randomUUID } from "node:crypto"

const nodes = Number(process.env.NODES ?? 1_000_000)
const client = await FalkorDB.connect({ socket: { host: "127.0.0.1", port: Number(process.env.BENCH_PORT ?? 6399) } })
const g = client.selectGraph(`node_updates_${randomUUID().slice(0, 6)}`)
const own = (reply: { metadata?: ReadonlyArray<string> }) =>
  Number(/execution time: ([\d.]+)/.exec((reply.metadata ?? []).join(" "))?.[1] ?? NaN)
const p50 = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(3)
try {
  for (let i = 0; i < nodes; i += 100_000) {
    await g.query("UNWIND range($a, $b) AS i CREATE (:X {i: i})", {
      params: { a: i, b: Math.min(nodes, i + 100_000) - 1 }
    })
  }
  await g.query("CREATE (:Q {key: 'q', n: 0})-[:K {n: 0}]->(:Q {key: 'r'})")
  const setNode = "MATCH (q:Q {key: 'q'}) SET q.n = q.n + 1"
  const rows: ReadonlyArray<readonly [string, string, string]> = [
    ["labelled CREATE, then a node SET", "CREATE (:T {id: $id})", setNode],
    ["both in one statement", `MATCH (q:Q {key: 'q'}) CREATE (:T {id: $id}) SET q.n = q.n + 1`, setNode],
    ["labelled CREATE, then an edge SET", "CREATE (:T {id: $id})", "MATCH (:Q {key: 'q'})-[k:K]->() SET k.n = k.n + 1"],
    ["labelled CREATE, then a read", "CREATE (:T {id: $id})", "MATCH (q:Q {key: 'q'}) RETURN q.n"],
    ["unlabelled CREATE, then a node SET", "CREATE ({id: $id})", setNode],
    ["edge CREATE, then a node SET", "MATCH (q:Q {key: 'q'}), (r:Q {key: 'r'}) CREATE (q)-[:E]->(r)", setNode],
    ["node SET, then a node SET", setNode, setNode]
  ]
  console.log(`${nodes} nodes; server time p50 of 30 pairs (ms)`)
  for (const [label, first, second] of rows) {
    const a: Array<number> = []
    const b: Array<number> = []
    for (let i = 0; i < 30; i++) {
      a.push(own(await g.query(first, { params: { id: randomUUID() } })))
      b.push(own(await g.query(second, { params: { id: randomUUID() } })))
    }
    console.log(`  ${label.padEnd(40)} first ${p50(a).padStart(7)}  then ${p50(b).padStart(7)}`)
  }
} finally {
  await g.delete().catch(() => undefined)
  await client.close()
}
