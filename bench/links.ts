/**
 * `npm run bench:links`: what a save's suggested links (issue 41 point 4, layers/factStore/links.ts)
 * add to relay_save_fact on the bench's 100k graph: the save statement alone against the save
 * statement then the links read, in alternated blocks, by round trip on one connection. Half the saves
 * repeat the rare words of a fact already there (links found), half are new text (links looked for).
 * BENCH_PORT: a FalkorDB to load into (default 6399); BENCH_FACTS: the graph's size (default
 * 100,000); BENCH_SAVES: saves of each kind (default 300). Not part of npm test.
 */
import { FalkorDB } from "falkordb"
import { randomUUID } from "node:crypto"
import { cpus, loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { termWords, wordLinksQuery } from "../src/layers/factStore/links.js"
import { saveQueries } from "../src/layers/factStore/saveFact.js"
import { generateGraph, loadGraph, rng } from "./graph.js"
import { saveParams } from "./saveParams.js"

const client = await FalkorDB.connect({ socket: { host: "127.0.0.1", port: Number(process.env.BENCH_PORT ?? 6399) } })
// BENCH_KEEP=<graph>: load into that graph once and keep it (later runs reuse it; drop it by hand).
const kept = process.env.BENCH_KEEP
const name = kept ?? `links_${randomUUID().slice(0, 6)}`
const size = Number(process.env.BENCH_FACTS ?? 100_000)
const saves = Number(process.env.BENCH_SAVES ?? 300)
const g = generateGraph(size, Date.now() - 3_600_000)
const graph = client.selectGraph(name)
const there = kept !== undefined && (await client.list()).includes(kept)
if (!there) {
  const loadStart = performance.now()
  await loadGraph(client, name, g)
  console.log(`loaded ${size} facts in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`)
}

const params = (content: string) => saveParams(content, null, "bench:links")

const rand = rng(41)
const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(rand() * xs.length)]!
const words = ["ledger", "quorum", "sprocket", "tundra", "vellum", "zephyr", "gantry", "harbor", "lattice", "mosaic"]
// The generated memory's words are each held by thousands of facts (none is rare), so facts with rare
// words of their own are seeded first: a "repeat" save says one of them again (links found).
const rare = (i: number) => ["alpha", "bravo", "charlie", "delta"].map((w) => `${w}${i}x`)
const seeded = 2 * saves + 40
const seedRows = Array.from({ length: seeded }, (_, i) => params(`${rare(i).join(" ")} ${pick(g.facts).content}`))
for (const p of seedRows) await graph.query(saveQueries.root, { params: p as never })
const contents = (kind: "repeat" | "new", i: number) =>
  kind === "repeat"
    ? `Again: ${rare(i + 20).reverse().join(", ")} ${pick(words)}`
    : `${pick(words)} ${pick(words)} ${pick(words)} rollout ${i} ${pick(words)} checklist`

const roundTrip = async (cypher: string, p: Record<string, unknown>) => {
  const t = performance.now()
  const r = await graph.query(cypher, { params: p as never })
  const server = Number(/execution time: ([\d.]+)/.exec((r.metadata ?? []).join(" "))?.[1] ?? NaN)
  return { ms: performance.now() - t, rows: r.data?.length ?? 0, server }
}

const saveAlone: Record<string, Array<number>> = { repeat: [], new: [] }
const withLinks: Record<string, Array<number>> = { repeat: [], new: [] }
const linksOnly: Record<string, Array<number>> = { repeat: [], new: [] }
const linksServer: Record<string, Array<number>> = { repeat: [], new: [] }
const found: Record<string, number> = { repeat: 0, new: 0 }
// Warm the plan cache for both statements.
for (let i = 0; i < 20; i++) {
  const p = params(contents("repeat", i - 20))
  await roundTrip(saveQueries.root, p)
  await roundTrip(wordLinksQuery, { pairs: termWords(p.content as string).map(([t, w]) => [t, w]), id: p.id })
}
// In blocks of 20 of each, alternated: a write leaves work (index upkeep) that the next statement on
// the graph pays, so a save alone must be measured among saves alone, and a save with its links read
// among those.
const block = 20
for (let i = 0; i < saves; i += block) {
  for (const kind of ["repeat", "new"] as const) {
    for (let j = i; j < i + block; j++) {
      saveAlone[kind]!.push((await roundTrip(saveQueries.root, params(contents(kind, j)))).ms)
    }
    for (let j = i; j < i + block; j++) {
      const p = params(contents(kind, j + saves))
      const t = performance.now()
      await roundTrip(saveQueries.root, p)
      const l = await roundTrip(wordLinksQuery, {
        pairs: termWords(p.content as string).map(([t, w]) => [t, w]),
        id: p.id
      })
      withLinks[kind]!.push(performance.now() - t)
      linksOnly[kind]!.push(l.ms)
      linksServer[kind]!.push(l.server)
      if (l.rows > 0) found[kind]!++
    }
  }
}

// The links read's own cost: right after a save it also pays the upkeep the save left on the terms'
// DOCS edges, which the next save pays when no read comes between (see the note below the table).
const alone: Array<number> = []
const aloneServer: Array<number> = []
for (const p of seedRows.slice(0, 2 * saves)) {
  const l = await roundTrip(wordLinksQuery, { pairs: termWords(p.content as string).map(([t, w]) => [t, w]), id: p.id })
  alone.push(l.ms)
  aloneServer.push(l.server)
}

const q = (xs: ReadonlyArray<number>, at: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * at)]!
const f = (x: number) => x.toFixed(3)
const lines = [
  `suggested links on a ${
    size.toLocaleString("en")
  }-fact graph (round trip on loopback, ms; ${saves} saves of each kind and way, in alternated blocks of 20)`,
  "",
  "| saves | save p50 | save + links p50 | added p50 | links read p50 | links read p90 | links server p50 | with links found |",
  "|---|---|---|---|---|---|---|---|",
  ...(["repeat", "new"] as const).map((k) =>
    `| ${k === "repeat" ? "repeating a fact's words" : "new words"} | ${f(q(saveAlone[k]!, 0.5))} | ${
      f(q(withLinks[k]!, 0.5))
    } | ${f(q(withLinks[k]!, 0.5) - q(saveAlone[k]!, 0.5))} | ${f(q(linksOnly[k]!, 0.5))} | ${
      f(q(linksOnly[k]!, 0.9))
    } | ${f(q(linksServer[k]!, 0.5))} | ${found[k]} of ${saves} |`
  ),
  "",
  `links read with no save before it (${alone.length} seeded facts): round trip p50 ${f(q(alone, 0.5))}, p90 ${
    f(q(alone, 0.9))
  }; server p50 ${f(q(aloneServer, 0.5))}`,
  `load average while measuring: ${loadavg().map((x) => x.toFixed(1)).join(", ")} (${cpus().length} cores)`,
  "",
  "target: <= 2 ms added to save p50 at 100k (issue 41 point 4)"
]
console.log(lines.join("\n"))
if (kept === undefined) await graph.delete()
await client.close()
