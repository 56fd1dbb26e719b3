/**
 * Where a suggested-links read (layers/factStore/links.ts) spends its CPU, lone and batched
 * (groupCommit.ts `makeReadBatcher`), on a graph `npm run bench:links` kept:
 *
 *   BENCH_PORT=<port> BENCH_KEEP=<graph> npm run bench:links     (loads and seeds it once)
 *   BENCH_PORT=<port> BENCH_KEEP=<graph> node --import tsx bench/linkReads.ts
 *
 * For the seeded facts' word reads, one after another: the bare client (its CPU, FalkorDB's CPU and
 * execution time), Relay's `db.read` in-process (Relay's CPU, FalkorDB's), and the batch form by 4 and
 * by 16 a statement (checked to give each read's lone rows); then one caller's latency through the
 * read batcher (a lone read, sent at once) against `db.read`, alternated. No save runs meanwhile, so
 * no read pays the upkeep a save leaves (bench:links measures that). Not part of npm test.
 */
import { Effect, Schema } from "effect"
import { FalkorDB } from "falkordb"
import { loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { makeReadBatcher } from "../src/layers/factStore/groupCommit.js"
import { linkReadForms, termWords, wordLinksQuery } from "../src/layers/factStore/links.js"
import { GraphDatabase } from "../src/services/GraphDatabase.js"
import { databaseCounters, ownCpuMs } from "./cpuShare.js"
import { recordedRelay } from "./relay.js"

const port = Number(process.env.BENCH_PORT ?? 6399)
const name = process.env.BENCH_KEEP ?? "links"
const client = await FalkorDB.connect({ socket: { host: "127.0.0.1", port } })
const graph = client.selectGraph(name)
const seeded = await graph.roQuery(
  "MATCH (f:Fact) WHERE f.content STARTS WITH 'alpha' OR f.content STARTS WITH 'Again' " +
    "RETURN f.id AS id, f.content AS content LIMIT 160"
)
const params = (seeded.data as Array<{ id: string; content: string }>).map((f) => ({
  pairs: termWords(f.content).map(([t, w]) => [t, w]),
  id: f.id
}))
const { runtime } = recordedRelay({ host: "127.0.0.1", port, password: undefined, stop: () => Promise.resolve() }, name)
const LinkRow = Schema.Struct({ id: Schema.String, content: Schema.String })
const BatchRow = Schema.Struct({ gc_k: Schema.Number, id: Schema.String, content: Schema.String })
const form = linkReadForms().get(wordLinksQuery)!
const executed = (r: { metadata?: Array<string> }) =>
  Number(/execution time: ([\d.]+)/.exec((r.metadata ?? []).join(" "))?.[1] ?? NaN)
const f = (x: number) => x.toFixed(3)

/** CPU ms a read of this process and of FalkorDB while `run` does every read. */
const measured = async (label: string, run: () => Promise<number>) => {
  const before = { own: ownCpuMs(), db: await databaseCounters(client), at: performance.now() }
  const extra = await run()
  const db = await databaseCounters(client)
  const n = params.length
  console.log(
    `| ${label} | ${f((performance.now() - before.at) / n)} | ${f((ownCpuMs() - before.own) / n)} | ${
      f((db.cpuMs - before.db.cpuMs) / n)
    } | ${Number.isNaN(extra) ? "" : f(extra / n)} |`
  )
}

const db = await runtime.runPromise(GraphDatabase)
const lone: Array<string> = []
let mismatched = 0
for (const pass of [1, 2]) {
  console.log(`\npass ${pass}, ${params.length} word reads, ms a read:`)
  console.log("| how | wall | this process CPU | FalkorDB CPU | FalkorDB execution |\n|---|---|---|---|---|")
  await measured("bare client, one a statement", async () => {
    let ex = 0
    for (const [i, p] of params.entries()) {
      const r = await graph.roQuery(wordLinksQuery, { params: p as never })
      ex += executed(r)
      lone[i] = JSON.stringify(r.data)
    }
    return ex
  })
  await measured("Relay db.read, one a statement", async () => {
    for (const p of params) await runtime.runPromise(db.read(wordLinksQuery, p, LinkRow))
    return NaN
  })
  for (const size of [4, 16]) {
    await measured(`Relay db.read, ${size} a statement`, async () => {
      for (let s = 0; s < params.length; s += size) {
        const chunk = params.slice(s, s + size)
        const rows = await runtime.runPromise(
          db.read(form.cypher, form.params(chunk.map((p, k) => ({ ...p, gc_k: k }))), BatchRow)
        )
        chunk.forEach((_, k) => {
          const mine = JSON.stringify(rows.filter((r) => r.gc_k === k).map(({ gc_k: _k, ...rest }) => rest))
          if (mine !== lone[s + k]) mismatched++
        })
      }
      return NaN
    })
  }
}
console.log(`batched reads whose rows differ from the lone read's: ${mismatched}`)

const latency = await runtime.runPromise(Effect.scoped(Effect.gen(function*() {
  const reads = yield* makeReadBatcher(db, linkReadForms())
  const direct: Array<number> = []
  const batched: Array<number> = []
  for (let pass = 0; pass < 3; pass++) {
    for (const p of params) {
      let t = performance.now()
      yield* db.read(wordLinksQuery, p, LinkRow)
      direct.push(performance.now() - t)
      t = performance.now()
      yield* reads.read(wordLinksQuery, p, LinkRow)
      batched.push(performance.now() - t)
    }
  }
  const q = (xs: Array<number>, at: number) => f([...xs].sort((a, b) => a - b)[Math.floor(xs.length * at)]!)
  return `one caller, ${direct.length} reads each way, alternated: db.read p50 ${q(direct, 0.5)} p90 ${
    q(direct, 0.9)
  }; through the read batcher p50 ${q(batched, 0.5)} p90 ${q(batched, 0.9)} ms`
})))
console.log(latency)
console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(", ")}`)
await runtime.dispose()
await client.close()
