/**
 * `node --import tsx bench/resolveWrites.ts` (issue 42, point 4): what relay_resolve_conflict's statement
 * pays for the `stale_at` it sets on the loser's dependents. On the bench graph (BENCH_FACTS, default
 * 100,000; loaded into the FalkorDB at BENCH_PORT, default 6399), the lean resolve statement (a graph
 * without merges) on fresh fork pairs (bench/graph.ts makeForkPairs: the loser has one child, which
 * goes stale), by FalkorDB's own time, p50, in four alternated settings: right after a save (the node
 * update after a create, performance.md) or after another resolve, each as is and with its marking
 * read but not written. Then the median per operator of 10 PROFILEs right after a save. Not part of
 * npm test.
 */
import { FalkorDB } from "falkordb"
import { randomUUID } from "node:crypto"
import { leanResolveQuery } from "../src/layers/factStore/resolve.js"
import { saveQueries } from "../src/layers/factStore/saveFact.js"
import { generateGraph, loadGraph, makeForkPairs } from "./graph.js"
import { saveParams } from "./saveParams.js"

const rounds = Number(process.env.BENCH_ROUNDS ?? 40)
const client = await FalkorDB.connect({ socket: { host: "127.0.0.1", port: Number(process.env.BENCH_PORT ?? 6399) } })
const name = `resolve_writes_${randomUUID().slice(0, 6)}`
const g = generateGraph(Number(process.env.BENCH_FACTS ?? 100_000), Date.now() - 3_600_000)
await loadGraph(client, name, g)
const graph = client.selectGraph(name)
const pairs = await makeForkPairs(client, name, 6 * rounds + 20, Date.now() - 60_000, 11)
const leaves = [...g.leaves]

const marking = /OPTIONAL MATCH \(l\)<-\[:BUILDS_ON\*1\.\.\]-\(l_dep\) WHERE (.*?) SET l_dep\.stale_at = .*? WITH /
  .exec(
    leanResolveQuery
  )
if (marking === null) throw new Error("the resolve statement changed: no marking of the dependents")
const readOnly = leanResolveQuery.replace(
  marking[0],
  `OPTIONAL MATCH (l)<-[:BUILDS_ON*1..]-(l_dep) WHERE ${marking[1]} WITH `
)

const own = (reply: { metadata?: ReadonlyArray<string> }) =>
  Number(/execution time: ([\d.]+)/.exec((reply.metadata ?? []).join(" "))?.[1] ?? NaN)
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
let nextLeaf = 0
let nextPair = 0
const save = () =>
  graph.query(saveQueries.child, {
    params: saveParams("a note on the queue", leaves[(nextLeaf++ * 7919) % leaves.length]!, "bench:resolve") as never
  })
const resolveParams = () => {
  const p = pairs[nextPair++]!
  return {
    callId: randomUUID(),
    winnerId: p.winner,
    loserId: p.loser,
    reason: "bench",
    resolvedBy: "bench",
    now: Date.now()
  }
}
const settings = {
  "after a save, as is": { before: save, cypher: leanResolveQuery },
  "after a save, marking not written": { before: save, cypher: readOnly },
  "after a resolve, as is": { before: null, cypher: leanResolveQuery },
  "after a resolve, marking not written": { before: null, cypher: readOnly }
} as const
const times = new Map<string, Array<number>>(Object.keys(settings).map((k) => [k, []]))
for (let i = 0; i < rounds; i++) {
  const order = Object.entries(settings)
  for (const [label, s] of i % 2 === 0 ? order : order.reverse()) {
    if (s.before !== null) await s.before()
    else await graph.query(leanResolveQuery, { params: resolveParams() as never })
    times.get(label)!.push(own(await graph.query(s.cypher, { params: resolveParams() as never })))
  }
}
console.log(`${g.facts.length} facts, FalkorDB time of the resolve statement, p50 of ${rounds}:`)
console.log("| setting | ms |")
console.log("|---|---|")
for (const [label, xs] of times) console.log(`| ${label} | ${median(xs).toFixed(3)} |`)

/** A parameter as a Cypher literal for GRAPH.PROFILE's CYPHER prefix. */
const literal = (v: unknown): string => typeof v === "string" ? JSON.stringify(v) : String(v)
const profiles: Array<Array<{ op: string; records: number; ms: number }>> = []
for (let i = 0; i < 10; i++) {
  await save()
  const rows = await client.connection.then((c) =>
    c.sendCommand([
      "GRAPH.PROFILE",
      name,
      `CYPHER ${Object.entries(resolveParams()).map(([k, v]) => `${k}=${literal(v)}`).join(" ")} ${leanResolveQuery}`
    ])
  ) as unknown as Array<string>
  profiles.push(rows.map((r) => {
    const m = /^(\s*)(.*?) \| Records produced: (\d+), Execution time: ([\d.]+) ms/.exec(r)
    return { op: `${m?.[1] ?? ""}${m?.[2] ?? r}`, records: Number(m?.[3] ?? 0), ms: Number(m?.[4] ?? 0) }
  }))
}
console.log("\nPROFILE right after a save, median of 10 per operator (ms, records):")
for (const [k, o] of profiles[0]!.entries()) {
  console.log(
    `${median(profiles.map((p) => p[k]?.ms ?? 0)).toFixed(3).padStart(8)} ${String(o.records).padStart(3)} ${o.op}`
  )
}
await graph.delete()
await client.close()
