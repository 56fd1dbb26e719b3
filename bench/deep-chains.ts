/**
 * Deep and wide BUILDS_ON shapes in a graph of 100,000 facts (issue 9, item 3):
 *
 *   node --import tsx bench/deep-chains.ts        (BENCH_FACTS=100000 by default)
 *
 * Loads the realistic graph of bench/graph.ts, then adds a 3,000-deep chain (one fact a third of
 * the way down superseded, so two thirds of the chain are stale) and a root with 3,000 direct
 * children. Times context of the chain's leaf, impact of the chain's root and of the wide root,
 * paging each to the end, through the real FactStore (wall clock, in process), and the same
 * statements replayed on the bare client, where FalkorDB reports its own execution time (the
 * "in the database" figure). Uses FALKORDB_HOST/PORT/PASSWORD when set, else a private server;
 * makes its own graph and drops it.
 */
import { Effect, Schema } from "effect"
import type { Graph } from "falkordb"
import { randomUUID } from "node:crypto"
import { ContextCursor, ImpactCursor } from "../src/domain/chainPaging.js"
import { clockSetQuery } from "../src/layers/database/clock.js"
import { markDependentsOfRows } from "../src/layers/factStore/staleness.js"
import { FactStore } from "../src/services/FactStore.js"
import { createBuildsOn, createFacts, storedFact } from "./bulkLoad.js"
import { bareClient, openDatabase } from "./db.js"
import { generateGraph, loadGraph } from "./graph.js"
import { type Recorded, recordedRelay } from "./relay.js"

const N = Number(process.env.BENCH_FACTS ?? 100_000)
const DEPTH = 3000
const WIDTH = 3000
const RUNS = 15

const db = await openDatabase()
const client = await bareClient(db)
const graphName = `bench_deep_${randomUUID().slice(0, 8)}`
const graph = client.selectGraph(graphName)
const { recorder, runtime } = recordedRelay(db, graphName)

const fact = (id: string, i: number, at: number, what: string) => {
  const content = `${what} step ${i}: keep the retry budget at ${i % 7} tries and log every give-up with its cause.`
  return storedFact(id, content, "bench", "bench:deep", at)
}

const addShapes = async (g: Graph, start: number) => {
  const chain = Array.from({ length: DEPTH }, (_, i) => fact(randomUUID(), i, start + i, "chain"))
  const wideRoot = fact(randomUUID(), 0, start + DEPTH, "wide root")
  const wide = Array.from({ length: WIDTH }, (_, i) => fact(randomUUID(), i, start + DEPTH + 1 + i, "wide"))
  const winner = fact(randomUUID(), 0, start + DEPTH + WIDTH + 1, "winner")
  const all = [...chain, wideRoot, ...wide, winner]
  await createFacts(g, all)
  await createBuildsOn(g, [
    ...chain.slice(1).map((f, i) => [f.id, chain[i]!.id] as const),
    ...wide.map((f) => [f.id, wideRoot.id] as const)
  ])
  await g.query(
    `MATCH (w:Fact {id: $w}), (l:Fact {id: $l}) ` +
      `CREATE (w)-[:SUPERSEDES {reason: 'bench', resolved_by: 'bench', created_at: $at, call_id: 'bench'}]->(l) ` +
      `WITH l AS x, $at AS at ${markDependentsOfRows}`,
    { params: { w: winner.id, l: chain[1000]!.id, at: winner.created_at } }
  )
  await g.query(clockSetQuery({ last: "$last" }, true), {
    params: { last: winner.created_at + 1 }
  })
  return { leaf: chain[DEPTH - 1]!.id, chainRoot: chain[0]!.id, wideRoot: wideRoot.id }
}

const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const fmt = (x: number) => x.toFixed(1).padStart(7)

/** FalkorDB's own execution time for the statements a call sent, replayed on the bare client. */
const inDatabase = async (trace: ReadonlyArray<Recorded>) => {
  let ms = 0
  for (const q of trace) {
    const options = q.params === undefined ? undefined : { params: q.params as Record<string, never> }
    const r = await graph.roQuery(q.cypher, options)
    const line = r.metadata?.find((m) => m.startsWith("Query internal execution time"))
    ms += Number(/([\d.]+) milliseconds/.exec(line ?? "")?.[1] ?? NaN)
  }
  return ms
}

const measure = async <A>(label: string, run: () => Promise<A>, describe: (a: A) => string) => {
  for (let i = 0; i < 2; i++) await run()
  const wall: Array<number> = []
  const dbMs: Array<number> = []
  let out: A | undefined
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now()
    const { result, trace } = await recorder.record(run)
    wall.push(performance.now() - start)
    dbMs.push(await inDatabase(trace.flat()))
    out = result
  }
  console.log(`${label.padEnd(46)} db ${fmt(median(dbMs))} ms   wall ${fmt(median(wall))} ms   ${describe(out!)}`)
}

const run = <A, E>(effect: Effect.Effect<A, E, FactStore>) => runtime.runPromise(effect)

try {
  const g = generateGraph(N, Date.now() - 60 * 60 * 1000)
  let t = performance.now()
  await loadGraph(client, graphName, g)
  const ids = await addShapes(graph, g.lastStamp + 1)
  const count = await graph.roQuery<{ n: number }>("MATCH (f:Fact) RETURN count(f) AS n")
  console.log(`loaded ${count.data?.[0]?.n} facts in ${((performance.now() - t) / 1000).toFixed(1)} s`)

  const context = (limit: number, cursor: ContextCursor | null = null) =>
    run(Effect.flatMap(FactStore, (s) => s.context(ids.leaf, { limit, cursor })))
  const impact = (id: string, limit: number, cursor: ImpactCursor | null = null) =>
    run(Effect.flatMap(FactStore, (s) => s.impact(id, { limit, cursor })))
  const statuses = (xs: ReadonlyArray<{ status: string }>) =>
    ["active", "superseded", "stale"].map((s) => `${xs.filter((x) => x.status === s).length} ${s}`).join(", ")

  console.log(`\nmedian of ${RUNS} runs after 2 warm-ups; db = FalkorDB's own execution time of the same statements`)
  await measure(
    `context of a ${DEPTH}-deep leaf (limit 50)`,
    () => context(50),
    (p) => `${p.items.length} facts: ${statuses(p.items)}`
  )
  await measure(`context of a ${DEPTH}-deep leaf (limit 500)`, () => context(500), (p) => `${p.items.length} facts`)
  await measure(
    `impact of the chain's root (limit 100)`,
    () => impact(ids.chainRoot, 100),
    (p) => `${p.items.length} dependents: ${statuses(p.items.map((d) => d.fact))}`
  )
  await measure(
    `impact of a root with ${WIDTH} children (100)`,
    () => impact(ids.wideRoot, 100),
    (p) => `${p.items.length} dependents`
  )
  await measure(
    `impact of a root with ${WIDTH} children (500)`,
    () => impact(ids.wideRoot, 500),
    (p) => `${p.items.length} dependents`
  )

  // Whole lists, page by page, as a client reading to the end would.
  const pages = async <K, A>(
    schema: Schema.Schema<K, string>,
    read: (c: K | null) => Promise<{ items: ReadonlyArray<A>; next_cursor: string | null }>
  ) => {
    let cursor: K | null = null
    let n = 0
    let calls = 0
    for (;;) {
      const p = await read(cursor)
      n += p.items.length
      calls++
      if (p.next_cursor === null) return { n, calls }
      cursor = Schema.decodeSync(schema)(p.next_cursor)
    }
  }
  t = performance.now()
  const c = await pages(ContextCursor, (cursor) => context(500, cursor))
  console.log(
    `context paged to the root (500 a page)      ${c.n} facts in ${c.calls} calls, ${
      (performance.now() - t).toFixed(0)
    } ms`
  )
  t = performance.now()
  const d = await pages(ImpactCursor, (cursor) => impact(ids.chainRoot, 500, cursor))
  console.log(
    `impact of the chain's root paged (500)       ${d.n} dependents in ${d.calls} calls, ${
      (performance.now() - t).toFixed(0)
    } ms`
  )
} finally {
  await runtime.dispose()
  await graph.delete().catch(() => undefined)
  await client.close().catch(() => undefined)
  await db.stop()
}
