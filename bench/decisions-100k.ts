/**
 * The five disagreement/awareness tools on a graph of 100,000 facts.
 *
 *   node --import tsx bench/decisions-100k.ts
 *
 * Starts a private FalkorDB (test/support/falkordbServer.ts), or uses FALKORDB_HOST/PORT/PASSWORD
 * when set, creates its own graph, bulk-loads a realistic year of facts with batched UNWIND CREATE
 * (threads that are mostly chains, with branches that fork, duplicates that differ only in case and
 * whitespace, most forks already settled by a SUPERSEDES), then times each tool through the real
 * FactStore and prints GRAPH.PROFILE of the conflict query. The graph is dropped at the end.
 */
import { Effect, Layer, Redacted } from "effect"
import { FalkorDB } from "falkordb"
import { randomBytes, randomUUID } from "node:crypto"
import { relayStack } from "../src/layers/assembly/stacks.js"
import { clockSetQuery } from "../src/layers/database/clock.js"
import { decisionsQuery, newFactsQuery } from "../src/layers/factStore/briefing.js"
import { forkedParentsQuery, openConflictsQuery } from "../src/layers/factStore/conflicts.js"
import { FactStore } from "../src/services/FactStore.js"
import { Settings } from "../src/services/Settings.js"
import { startServer } from "../test/support/falkordbServer.js"
import {
  createBuildsOn,
  createFacts,
  createSupersedes,
  markForks,
  rewindForks,
  type StoredFact,
  storedFact,
  storeThreadClustersOn
} from "./bulkLoad.js"

const N = Number(process.env.BENCH_FACTS ?? 100_000)
const RUNS = 15
const day = 24 * 60 * 60 * 1000

// A small deterministic PRNG so every run builds the same shape.
let seed = 0x5eed
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(rand() * xs.length)]!

const writers = ["claude-desktop", "cursor", "zed", "claude-code", "windsurf"]
const topics = ["auth", "billing", "search", "storage", "deploy", "observability", "api", "ui", "queue", "cache"]

interface Row extends StoredFact {
  readonly parent: string | null
}

/** A year of work ending a minute ago: ~2% new threads, mostly chains, 8% branches, 2% duplicates. */
const generate = (end: number) => {
  const start = end - 365 * day
  const step = Math.floor((end - start) / N)
  const rows: Array<Row> = []
  const children = new Map<string, Array<Row>>()
  const threads: Array<Array<Row>> = []
  const threadOf = new Map<string, Array<Row>>()
  for (let i = 0; i < N; i++) {
    const writer = pick(writers)
    const session = `${writer}-${Math.floor(i / 40)}`
    let parent: Row | null = null
    if (threads.length > 0 && rand() > 0.02) {
      const thread = threads[threads.length - 1 - Math.floor(rand() * Math.min(threads.length, 60))]!
      parent = rand() < 0.92 ? thread[thread.length - 1]! : pick(thread)
    }
    let content = `${pick(topics)}: decision ${i} ${randomBytes(6).toString("hex")}`
    const siblings = parent === null ? [] : children.get(parent.id) ?? []
    if (siblings.length > 0 && rand() < 0.25) {
      // Another assistant saying the same thing in other words: case and whitespace only.
      content = `  ${pick(siblings).content.toUpperCase().replace(/ /g, "   ")} `
    }
    const row: Row = {
      ...storedFact(randomUUID(), content, writer, session, start + i * step),
      parent: parent?.id ?? null
    }
    rows.push(row)
    if (parent === null) {
      rootOf(row)
      const thread = [row]
      threads.push(thread)
      threadOf.set(row.id, thread)
    } else {
      threadOf.get(rootOf(row))!.push(row)
      siblings.push(row)
      children.set(parent.id, siblings)
    }
  }
  return { rows, children, start, step }
}

// Root lookup by walking parents; cached so generation stays linear.
const roots = new Map<string, string>()
const rootOf = (row: Row): string => {
  const r = row.parent === null ? row.id : roots.get(row.parent)!
  roots.set(row.id, r)
  return r
}

/** Most forks are settled: the oldest sibling wins over every sibling that says something else. */
const settle = (children: Map<string, Array<Row>>, openShare: number) => {
  const edges: Array<{ w: string; l: string; t: number; by: string }> = []
  let forkParents = 0
  for (const kids of children.values()) {
    if (new Set(kids.map((k) => k.norm)).size < 2) continue
    forkParents++
    if (rand() < openShare) continue
    const winner = kids[0]!
    for (const k of kids.slice(1)) {
      if (k.norm !== winner.norm) edges.push({ w: winner.id, l: k.id, t: k.created_at + 1, by: pick(writers) })
    }
  }
  return { edges, forkParents }
}

const stats = (xs: Array<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return {
    median: s[Math.floor(s.length / 2)]!,
    p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]!,
    min: s[0]!
  }
}
const fmt = (x: number) => x.toFixed(1).padStart(7)

const main = async () => {
  const external = process.env.FALKORDB_HOST !== undefined
  const server = external ? undefined : await startServer()
  const host = server?.host ?? process.env.FALKORDB_HOST!
  const port = server?.port ?? Number(process.env.FALKORDB_PORT ?? 6379)
  const password = server?.password ?? process.env.FALKORDB_PASSWORD
  // BENCH_KEEP_GRAPH=name loads once into that graph and keeps it (for iterating on queries by hand).
  const keep = process.env.BENCH_KEEP_GRAPH
  const graphName = keep ?? `bench_decisions_${randomBytes(4).toString("hex")}`
  const raw = await FalkorDB.connect({ socket: { host, port }, ...(password === undefined ? {} : { password }) })
  const graph = raw.selectGraph(graphName)
  try {
    const settings = Layer.succeed(Settings, {
      database: { _tag: "HostPort", host, port, password: password === undefined ? null : Redacted.make(password) },
      graph: graphName,
      rateLimitPerMinute: 1_000_000
    })
    const live = relayStack(settings)

    const end = Date.now() - 60_000
    let t0 = performance.now()
    const { children, rows } = generate(end)
    const { edges, forkParents } = settle(children, 0.04)
    console.log(
      `generated ${rows.length} facts, ${forkParents} parents with a fork, ${edges.length} SUPERSEDES in ${
        ((performance.now() - t0) / 1000).toFixed(1)
      } s`
    )

    const program = Effect.gen(function*() {
      const store = yield* FactStore
      // The layer made the indexes and the unique constraint; now the bulk load.
      yield* store.currentState({ limit: 1, sessionId: null, before: null })
      t0 = performance.now()
      // Parents with two children that differ after normalising get a ForkMark, as relay_save_fact leaves them.
      const forked = [...children].filter(([, kids]) => new Set(kids.map((k) => k.norm)).size > 1).map(([p]) => p)
      yield* Effect.promise(() => createFacts(graph, rows.map(({ parent: _p, ...r }) => r)))
      yield* Effect.promise(() => markForks(graph, forked))
      const links = rows.flatMap((r) => r.parent === null ? [] : [[r.id, r.parent] as const])
      yield* Effect.promise(() => createBuildsOn(graph, links))
      yield* Effect.promise(() =>
        createSupersedes(
          graph,
          edges.map((e) => ({ from: e.w, to: e.l, reason: "settled in review", resolved_by: e.by, created_at: e.t }))
        )
      )
      const last = Math.max(rows[rows.length - 1]!.created_at, ...edges.map((e) => e.t))
      yield* Effect.promise(() =>
        graph.query(clockSetQuery({ last: "$last" }, true), {
          params: { last }
        })
      )
      yield* Effect.promise(() => rewindForks(graph))
      yield* Effect.promise(() => storeThreadClustersOn(graph))
      const counts = yield* Effect.promise(() =>
        graph.roQuery<{ facts: number }>("MATCH (f:Fact) RETURN count(f) AS facts")
      )
      if (process.env.BENCH_ONLY_LOAD === "1") return
      console.log(
        `loaded ${counts.data?.[0]?.facts} facts, ${links.length} BUILDS_ON, ${edges.length} SUPERSEDES in ${
          ((performance.now() - t0) / 1000).toFixed(1)
        } s`
      )

      const show = (lines: Array<string>) => lines.map((l) => `  ${l}`).join("\n")
      console.log("\nGRAPH.PROFILE relay_detect_conflicts:")
      // Its forked parents first, as the store reads them (conflicts.ts): the walk takes their ids.
      const marked = yield* Effect.promise(() =>
        graph.roQuery<{ snap: number; forked: Array<number> }>(forkedParentsQuery, {
          params: { snap: null, asOf: null }
        })
      )
      const { snap, forked: ids } = marked.data![0]!
      const profile = yield* Effect.promise(() =>
        graph.profile(
          `CYPHER snap=${snap} asOf=NULL forked=${
            JSON.stringify(ids)
          } afterKey=${Number.MAX_SAFE_INTEGER} afterChild=0 parents=21 children=21 ${openConflictsQuery}`
        )
      )
      console.log(show(profile))
      // GRAPH.PROFILE takes no parameters from this client: give them in Cypher's own prefix.
      const prefix = `CYPHER after=${end - day} asOf=${end} reader='cursor' limit=51 `
      console.log("\nGRAPH.PROFILE briefing new facts:")
      console.log(show(yield* Effect.promise(() => graph.profile(prefix + newFactsQuery))))
      console.log("\nGRAPH.PROFILE briefing decisions:")
      console.log(show(yield* Effect.promise(() => graph.profile(prefix + decisionsQuery))))

      const time = <A, E>(label: string, make: (i: number) => Effect.Effect<A, E>, describe: (a: A) => string) =>
        Effect.gen(function*() {
          const ms: Array<number> = []
          let out: A | undefined
          for (let i = -2; i < RUNS; i++) {
            const s = performance.now()
            const r = yield* Effect.either(make(i))
            if (r._tag === "Left") {
              console.log(
                `${label.padEnd(34)} FAILED after ${fmt(performance.now() - s)} ms: ${
                  String((r.left as { detail?: string }).detail ?? r.left)
                }`
              )
              return
            }
            out = r.right
            if (i >= 0) ms.push(performance.now() - s)
          }
          const { median, min, p95 } = stats(ms)
          console.log(
            `${label.padEnd(34)} median ${fmt(median)} ms  p95 ${fmt(p95)} ms  min ${fmt(min)} ms   ${describe(out!)}`
          )
        })

      console.log(`\n${RUNS} timed runs each after 2 warm-ups (ms, wall clock, in-process through FactStore):`)
      yield* time(
        "relay_detect_conflicts (first 20)",
        () => store.openConflicts({ limit: 20, after: null }),
        (c) => `${c.conflicts.length} forked parents`
      )
      // Resolve children of different parents each run (a page of 100 parents outlasts the runs).
      const open = (yield* store.openConflicts({ limit: 100, after: null })).conflicts
      yield* time("relay_resolve_conflict (new)", (i) => {
        const c = open[(i + 2) % open.length]!
        return store.resolve({
          callId: crypto.randomUUID(),
          winnerId: c.children[0]!.id,
          loserId: c.children[1]!.id,
          reason: "bench",
          resolvedBy: "bench"
        })
      }, (r) => `${r.stale.length} stale`)
      const done = open[0]!
      yield* time(
        "relay_resolve_conflict (again)",
        () =>
          store.resolve({
            callId: crypto.randomUUID(),
            winnerId: done.children[0]!.id,
            loserId: done.children[1]!.id,
            reason: "bench",
            resolvedBy: "bench"
          }),
        (r) => `already_resolved ${r.alreadyResolved}`
      )
      yield* time(
        "relay_get_briefing (automatic: from the cursor)",
        () => store.briefing({ reader: "cursor", since: null, limit: 50, after: null }),
        (b) => `${b.newFacts.length} facts, ${b.decisions.length} decisions, ${b.openConflicts.length} conflicts`
      )
      let since = Date.now()
      yield* time(
        "relay_get_briefing (chained)",
        () =>
          store.briefing({ reader: "cursor", since, limit: 50, after: null }).pipe(
            Effect.tap((b) => Effect.sync(() => (since = b.asOf)))
          ),
        (b) => `${b.newFacts.length} facts, ${b.decisions.length} decisions, ${b.openConflicts.length} conflicts`
      )
      yield* time(
        "relay_get_important_facts (10)",
        () => store.important({ limit: 10, after: null }),
        (r) => `top score ${r.items[0]?.score.toFixed(4)}`
      )
      yield* time(
        "relay_get_important_facts (100)",
        () => store.important({ limit: 100, after: null }),
        (r) => `${r.items.length} facts`
      )
      yield* time(
        "relay_get_clusters (50 x 50)",
        () => store.clusters({ limit: 50, factsPerCluster: 50 }),
        (c) => `${c.total} clusters, largest ${c.clusters[0]?.size}`
      )
    })
    await Effect.runPromise(program.pipe(Effect.provide(live), Effect.scoped))
  } finally {
    if (keep === undefined) await graph.delete().catch(() => undefined)
    await raw.close().catch(() => undefined)
    await server?.stop()
  }
}

await main()
