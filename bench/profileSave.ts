/**
 * `npm run bench:save`: relay_save_fact's statement (a child under a generated parent) on the bench's
 * 100k graph, beside CREATEs that add one part of it at a time, by FalkorDB's own time, then its
 * GRAPH.PROFILE: where a save's time goes inside FalkorDB. At 1M facts an update of a node's
 * property after a create costs ~40 ms where an edge's costs ~0.1 (the term-count rows show it):
 * why a save keeps its counters on edges and sets every property of the fact in its CREATE. BENCH_PORT: a FalkorDB to load into
 * (default 6399); then the same save as a row of a batch of 16 (group commit) against a lone one, and both PROFILEs. BENCH_FACTS: the graph's size (default 100,000). Not part of npm test.
 */
import { FalkorDB } from "falkordb"
import { randomUUID } from "node:crypto"
import { saveBatchForms, saveQueries } from "../src/layers/factStore/saveFact.js"
import { addDocs } from "../src/layers/factStore/termCounts.js"
import { generateGraph, loadGraph } from "./graph.js"
import { saveParams } from "./saveParams.js"

const client = await FalkorDB.connect({ socket: { host: "127.0.0.1", port: Number(process.env.BENCH_PORT ?? 6399) } })
const name = `profile_save_${randomUUID().slice(0, 6)}`
const g = generateGraph(Number(process.env.BENCH_FACTS ?? 100_000), Date.now() - 3_600_000)
await loadGraph(client, name, g)
const graph = client.selectGraph(name)
const content = "the export job writes invoices to S3 nightly, gzip compressed, one file per tenant"
const params = (parentId: string) => saveParams(content, parentId, "bench:profile")
const parents = [...g.leaves]
const times = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2)
let cached = 0
const own = (reply: { metadata?: ReadonlyArray<string> }) => {
  const meta = (reply.metadata ?? []).join(" ")
  if (/Cached execution: 1/.test(meta)) cached++
  return Number(/execution time: ([\d.]+)/.exec(meta)?.[1] ?? NaN)
}
// The save beside CREATEs that add, one at a time, what the save writes: where its time goes.
const all = `id: $id, content: $content, norm: $norm, hash: $hash, written_by: $writtenBy, session_id: $sessionId, ` +
  `kind: $kind, created_at: $now, terms: $terms, stale_at: 8640000000000000`
const variants: Array<readonly [string, string]> = [
  ["relay_save_fact's statement", saveQueries.child],
  ["bare CREATE (id, content, created_at)", `CREATE (:Fact {id: $id, content: $content, created_at: $now})`],
  ["CREATE with every stored field", `CREATE (:Fact {${all}})`],
  ["... and its BUILDS_ON", `MATCH (p:Fact {id: $parentId}) CREATE (:Fact {${all}})-[:BUILDS_ON]->(p)`],
  [
    "... and the term counts on the Term nodes",
    `MATCH (p:Fact {id: $parentId}) CREATE (:Fact {${all}})-[:BUILDS_ON]->(p) ` +
    `FOREACH (t IN $distinctTerms | MERGE (x:Term {term: t}) ON CREATE SET x.docs = 1 ON MATCH SET x.docs = x.docs + 1)`
  ],
  [
    "... term counts on DOCS edges (a save's)",
    `MATCH (p:Fact {id: $parentId}) CREATE (:Fact {${all}})-[:BUILDS_ON]->(p) ` +
    `FOREACH (t IN $distinctTerms | ${addDocs("t", "1")})`
  ],
  [
    "... term counts by UNWIND, MATCH and SET",
    `MATCH (p:Fact {id: $parentId}) CREATE (:Fact {${all}})-[:BUILDS_ON]->(p) ` +
    `WITH 1 AS one UNWIND $distinctTerms AS t MATCH (x:Term {term: t}) SET x.docs = x.docs + 1`
  ],
  [
    "... term counts read, not written",
    `MATCH (p:Fact {id: $parentId}) CREATE (:Fact {${all}})-[:BUILDS_ON]->(p) ` +
    `WITH 1 AS one UNWIND $distinctTerms AS t MATCH (x:Term {term: t}) RETURN sum(x.docs) AS n`
  ]
]
const samples = variants.map(() => [] as Array<number>)
for (let i = 0; i < 200; i++) {
  for (const [k, [, cypher]] of variants.entries()) {
    samples[k]!.push(
      own(await graph.query(cypher, { params: params(parents[(i * 5 + k) % parents.length]!) as never }))
    )
  }
}
console.log(`server time p50 of 200 (${cached} of ${200 * variants.length} from the plan cache):`)
for (const [k, [label]] of variants.entries()) console.log(`  ${label.padEnd(40)} ${times(samples[k]!)} ms`)

// Group commit (groupCommit.ts): the same save as one row of a batch of 16, each under its own
// parent, alternated with lone saves so load drifts over both alike.
const form = saveBatchForms().get(saveQueries.child)!
const lone: Array<number> = []
const perRow: Array<number> = []
for (let i = 0; i < 100; i++) {
  lone.push(own(await graph.query(saveQueries.child, { params: params(parents[(i * 37) % parents.length]!) as never })))
  const rows = Array.from({ length: 16 }, (_, k) => ({
    ...params(parents[(i * 16 + k + 5000) % parents.length]!),
    gc_k: k
  }))
  perRow.push(own(await graph.query(form.cypher, { params: form.params(rows as never) as never })) / 16)
}
const l = Number(times(lone))
const b = Number(times(perRow))
console.log(`\ngroup commit, FalkorDB time per save (p50 of 100 each, alternated):`)
console.log(`| statement | ms a save | x lone |`)
console.log(`|---|---|---|`)
console.log(`| lone save | ${l.toFixed(3)} | 1.00 |`)
console.log(`| one of a batch of 16 | ${b.toFixed(3)} | ${(b / l).toFixed(2)} (target <= 0.5) |`)
/** A parameter as a Cypher literal (GRAPH.PROFILE takes them in the query's CYPHER prefix): map keys bare. */
const literal = (v: unknown): string =>
  v === null || v === undefined
    ? "null"
    : typeof v === "string"
    ? JSON.stringify(v)
    : Array.isArray(v)
    ? `[${v.map(literal).join(", ")}]`
    : typeof v === "object"
    ? `{${Object.entries(v).map(([k, x]) => `${k}: ${literal(x)}`).join(", ")}}`
    : String(v)
const profileOf = async (cypher: string, p: Record<string, unknown>) =>
  (await client.connection.then((c) =>
    c.sendCommand([
      "GRAPH.PROFILE",
      name,
      `CYPHER ${Object.entries(p).map(([k, v]) => `${k}=${literal(v)}`).join(" ")} ${cypher}`
    ])
  )) as unknown as Array<string>
console.log("\nPROFILE, a lone save:")
console.log((await profileOf(saveQueries.child, params(parents[7]!))).join("\n"))
// Which operators run once a row: a Conditional Traverse builds a matrix for each row it runs on.
console.log("\nPROFILE, a batch of 16:")
console.log(
  (await profileOf(
    form.cypher,
    form.params(
      Array.from(
        { length: 16 },
        (_, k) => ({ ...params(parents[(k * 13 + 9000) % parents.length]!), gc_k: k })
      ) as never
    )
  )).join("\n")
)
await graph.delete()
await client.close()
