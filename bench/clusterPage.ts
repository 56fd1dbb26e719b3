/**
 * `npm run bench:cluster-page` (issue 42, point 1): where a page of clusters' floor goes. On the
 * bench graph (BENCH_FACTS, default 100,000; loaded into the FalkorDB at BENCH_PORT, default 6399),
 * the statements relay_get_clusters sends for the bench's two pages (20 clusters of 5 facts, the
 * studio's 50 of 1) are recorded in process, then each is replayed on the bare client beside the
 * reference page (20 facts by id, bench/references.ts), alternated, BENCH_ROUNDS times (default
 * 41): FalkorDB's own time and the client's, medians. Then one PROFILE of each statement.
 * BENCH_GRAPH names a graph loaded before (same generator and size), kept after. Not part of npm test.
 */
import { FalkorDB } from "falkordb"
import { randomUUID } from "node:crypto"
import { internalMillis } from "../src/layers/database/slowStatements.js"
import { inlineParams } from "../test/support/cypherLiteral.js"
import { generateGraph, loadGraph } from "./graph.js"
import { inProcessRelay, type Recorded } from "./relay.js"

const rounds = Number(process.env.BENCH_ROUNDS ?? 41)
const port = Number(process.env.BENCH_PORT ?? 6399)
const client = await FalkorDB.connect({ socket: { host: "127.0.0.1", port } })
/** BENCH_GRAPH: a graph the same generator loaded before (kept after), for PROFILE work on one graph. */
const kept = process.env.BENCH_GRAPH
const name = kept ?? `cluster_page_${randomUUID().slice(0, 6)}`
const g = generateGraph(Number(process.env.BENCH_FACTS ?? 100_000), Date.now() - 3_600_000)
if (kept === undefined) await loadGraph(client, name, g)
const graph = client.selectGraph(name)
const relay = inProcessRelay({ host: "127.0.0.1", port, password: undefined, stop: () => Promise.resolve() }, name)

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ids = g.facts.map((f) => f.id)
const reference: Recorded = {
  mode: "roQuery",
  cypher: `UNWIND $ids AS id MATCH (f:Fact {id: id}) ` +
    `RETURN f.id AS id, f.content AS content, f.written_by AS w, f.session_id AS s, f.created_at AS at`,
  params: { ids: Array.from({ length: 20 }, (_, k) => ids[(k * 7919) % ids.length]!) },
  group: 0
}

/** One statement on the bare client: [server ms, client ms]. */
const run = async (q: Recorded): Promise<readonly [number, number]> => {
  const t = performance.now()
  const options = q.params === undefined ? undefined : { params: q.params as Record<string, never> }
  const reply = q.mode === "query" ? await graph.query(q.cypher, options) : await graph.roQuery(q.cypher, options)
  return [internalMillis(reply.metadata) ?? Number.NaN, performance.now() - t]
}

const profile = async (q: Recorded): Promise<string> => {
  const prefix = inlineParams(q.params ?? {})
  const conn = await client.connection
  const lines = await (conn as unknown as { sendCommand: (args: Array<string>) => Promise<ReadonlyArray<string>> })
    .sendCommand(["GRAPH.PROFILE", name, `CYPHER ${prefix} ${q.cypher}`])
  return lines.map((l) => `      ${l}`).join("\n")
}

const shapes = [
  { what: "relay_get_clusters (20 clusters, 5 facts each)", args: { limit: 20, facts_per_cluster: 5 } },
  { what: "the studio's threads list (50 clusters, 1 fact each)", args: { limit: 50, facts_per_cluster: 1 } }
]
process.stdout.write(`${g.facts.length} facts, graph ${name}, ${rounds} rounds a statement\n`)
try {
  for (const shape of shapes) {
    await relay.call("relay_get_clusters", shape.args)
    const { trace } = await relay.recorder.record(() => relay.call("relay_get_clusters", shape.args))
    const statements = trace.flat()
    const times = statements.map(() => ({ server: [] as Array<number>, client: [] as Array<number> }))
    const ref = { server: [] as Array<number>, client: [] as Array<number> }
    for (let i = 0; i < rounds; i++) {
      const [rs, rc] = await run(reference)
      ref.server.push(rs)
      ref.client.push(rc)
      for (const [k, q] of statements.entries()) {
        const [s, c] = await run(q)
        times[k]!.server.push(s)
        times[k]!.client.push(c)
      }
    }
    const refServer = median(ref.server)
    const refClient = median(ref.client)
    process.stdout.write(
      `\n${shape.what}: ${statements.length} statements in ${trace.length} round trip(s)\n` +
        `  reference page: server ${refServer.toFixed(3)} ms, client ${refClient.toFixed(3)} ms\n`
    )
    for (const [k, q] of statements.entries()) {
      const s = median(times[k]!.server)
      const c = median(times[k]!.client)
      process.stdout.write(
        `  round trip ${q.group - statements[0]!.group + 1}: server ${s.toFixed(3)} ms (x${
          (s / refServer).toFixed(1)
        }), client ${c.toFixed(3)} ms (x${(c / refClient).toFixed(1)}): ${q.cypher.slice(0, 90)}...\n`
      )
    }
    for (const q of statements) process.stdout.write(`  PROFILE ${q.cypher.slice(0, 60)}...\n${await profile(q)}\n`)
  }
} finally {
  await relay.dispose()
  if (kept === undefined) await graph.delete().catch(() => undefined)
  await client.close()
}
