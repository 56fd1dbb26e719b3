import { Effect } from "effect"
import type { FalkorDB } from "falkordb"
import { clockSetQuery } from "../src/layers/database/clock.js"
import { ensureSchema } from "../src/layers/database/graphIndexes.js"
import { neverStale } from "../src/layers/factStore/staleness.js"
import {
  batches,
  bulkBuildsOn,
  bulkCreateFacts,
  createSupersedes,
  markForks,
  rewindForks,
  type StoredFact,
  storedFact,
  storeThreadClustersOn,
  type Supersedes
} from "./bulkLoad.js"

/**
 * A realistic shared memory: many threads of varied depth and branching, forks under some
 * parents, duplicates, resolved forks whose losers leave stale branches behind, several writers
 * and sessions, timestamps spread over four weeks. Deterministic for a given size.
 */
export interface GeneratedGraph {
  readonly facts: ReadonlyArray<StoredFact>
  /** [child, parent] */
  readonly buildsOn: ReadonlyArray<readonly [string, string]>
  readonly supersedes: ReadonlyArray<Supersedes>
  readonly lastStamp: number
  /** Facts nobody builds on (fresh parents for writes). */
  readonly leaves: ReadonlyArray<string>
  readonly parentOf: ReadonlyMap<string, string>
  /** Parents whose children differ after normalising: marked by a ForkMark, as relay_save_fact leaves them. */
  readonly forked: ReadonlySet<string>
  readonly stats: Record<string, number>
}

export const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** A v4-shaped UUID from the PRNG (the app's ids are UUIDs; these are reproducible). */
export const uuidFrom = (rand: () => number) => {
  const h = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16))
  h[12] = "4"
  h[16] = "89ab"[Math.floor(rand() * 4)] ?? "8"
  const s = h.join("")
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`
}

const writers = ["claude-desktop", "cursor", "zed-agent", "codex-cli", "copilot", "windsurf", "aider"]
const verbs = ["Decided to use", "Switched to", "Benchmarked", "Ruled out", "Keep", "Migrated the service to", "Pinned"]
const things = [
  "PostgreSQL 16",
  "FalkorDB",
  "Redis streams",
  "gRPC",
  "the REST gateway",
  "Effect 3",
  "pnpm",
  "esbuild",
  "a token bucket",
  "JSONL snapshots",
  "OpenTelemetry",
  "Vitest",
  "the job queue",
  "S3 lifecycle rules"
]
const areas = [
  "billing",
  "search",
  "auth",
  "the ingest pipeline",
  "nightly exports",
  "the admin UI",
  "rate limits",
  "session storage",
  "audit logs",
  "the mobile API"
]
const reasons = [
  "p99 latency dropped",
  "it halves memory",
  "the team already knows it",
  "licensing is simpler",
  "the old path lost writes under load",
  "it removes a network hop",
  "CI got 40% faster"
]

const day = 24 * 60 * 60 * 1000

export const generateGraph = (size: number, endAt: number, seed = 7): GeneratedGraph => {
  const rand = rng(seed + size)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(rand() * xs.length)] as A
  const start = endAt - 28 * day
  const step = (28 * day) / size

  const facts: Array<StoredFact> = []
  const buildsOn: Array<readonly [string, string]> = []
  const parentOf = new Map<string, string>()
  const children = new Map<string, Array<number>>()
  const threads: Array<Array<number>> = []
  const threadOf: Array<number> = []
  let writer = pick(writers)
  let session = `${writer}:s0`
  let sessionLeft = 0
  let sessionNo = 0
  let last = start
  let duplicates = 0

  for (let i = 0; i < size; i++) {
    if (sessionLeft-- <= 0) {
      writer = pick(writers)
      session = `${writer}:${(++sessionNo).toString(36)}-${Math.floor(rand() * 1e6).toString(36)}`
      sessionLeft = 20 + Math.floor(rand() * 150)
    }
    const createdAt = Math.max(last + 1, Math.floor(start + (i + rand() * 0.9) * step))
    last = createdAt
    const id = uuidFrom(rand)
    let parent: number | null = null
    const r = rand()
    if (threads.length === 0 || r < 0.06) {
      threads.push([])
    } else {
      // Work continues mostly on recent threads, at their tip; sometimes it branches off inside a thread.
      const recent = threads.length - 1 - Math.floor(Math.pow(rand(), 3) * Math.min(threads.length, 400))
      const thread = threads[recent] as Array<number>
      const q = rand()
      parent = q < 0.8 ?
        (thread[thread.length - 1] as number)
        : q < 0.97 ?
        (thread[Math.floor(rand() * thread.length)] as number)
        : Math.floor(rand() * i)
    }
    let content = `${pick(verbs)} ${pick(things)} for ${pick(areas)}: ${pick(reasons)} (#${i}).`
    const siblings = parent === null ? [] : children.get(facts[parent]!.id) ?? []
    if (siblings.length > 0 && rand() < 0.25) {
      // A duplicate: someone says the same thing again, with different case and spacing.
      const twin = facts[siblings[Math.floor(rand() * siblings.length)] as number]!
      content = `  ${twin.content.toUpperCase().replace(/ /g, "  ")} `
      duplicates++
    }
    facts.push(storedFact(id, content, writer, session, createdAt))
    const t = parent === null ? threads.length - 1 : threadOf[parent] as number
    threads[t]!.push(i)
    threadOf.push(t)
    if (parent !== null) {
      const p = facts[parent]!.id
      buildsOn.push([id, p])
      parentOf.set(id, p)
      const list = children.get(p) ?? []
      list.push(i)
      children.set(p, list)
    }
  }

  // Forks: parents whose children say different things. All but the ~20 most recent are resolved:
  // the winner supersedes every sibling that differs from it, so their branches go stale.
  const forkParents = [...children.entries()]
    .filter(([, kids]) => new Set(kids.map((k) => facts[k]!.norm)).size > 1)
    .sort((a, b) => Math.max(...b[1]) - Math.max(...a[1]))
  const supersedes: Array<Supersedes> = []
  let lastStamp = last
  forkParents.slice(20).forEach(([, kids]) => {
    const winner = facts[pick(kids)]!
    const newest = Math.max(...kids.map((k) => facts[k]!.created_at))
    const at = Math.min(endAt - 1, newest + Math.floor(rand() * 2 * day))
    for (const k of kids) {
      const loser = facts[k]!
      if (loser.norm === winner.norm) continue
      supersedes.push({
        from: winner.id,
        to: loser.id,
        reason: `${pick(reasons)}, so ${pick(things)} wins`,
        resolved_by: pick(writers),
        created_at: at
      })
      lastStamp = Math.max(lastStamp, at)
    }
  })

  const leaves = facts.filter((f) => !children.has(f.id)).map((f) => f.id)
  const forked = new Set(forkParents.map(([p]) => p))
  return {
    facts,
    buildsOn,
    supersedes,
    lastStamp,
    leaves,
    parentOf,
    forked,
    stats: {
      facts: facts.length,
      roots: threads.length,
      builds_on: buildsOn.length,
      fork_parents: forkParents.length,
      open_fork_parents: Math.min(20, forkParents.length),
      supersedes: supersedes.length,
      duplicates,
      leaves: leaves.length,
      sessions: sessionNo + 1
    }
  }
}

/** The app's own schema (indexes + unique id), then batched UNWINDs in the exact shape saveFact/resolve write. */
export const loadGraph = async (client: FalkorDB, name: string, g: GeneratedGraph) => {
  const graph = client.selectGraph(name)
  await Effect.runPromise(ensureSchema(graph))
  const nodeOf = await bulkCreateFacts(client, name, g.facts)
  // Known from the generator (finding them afterwards with one aggregate over every BUILDS_ON edge
  // took ~12 s at 100k facts).
  await markForks(graph, [...g.forked])
  await bulkBuildsOn(client, name, g.buildsOn, nodeOf)
  await createSupersedes(graph, g.supersedes)
  await graph.query(clockSetQuery({ last: "$last" }, true), {
    params: { last: g.lastStamp }
  })
  await rewindForks(graph)
  await storeThreadClustersOn(graph)
}

/**
 * Fork pairs made just before the resolve measurements (so they never show up as open conflicts in
 * the read measurements): under a fresh parent, two differing children, the loser with one child
 * that goes stale when it loses.
 */
export const makeForkPairs = async (client: FalkorDB, name: string, count: number, at: number, seed: number) => {
  const rand = rng(seed)
  const pairs = Array.from({ length: count }, (_, i) => ({
    p: uuidFrom(rand),
    w: uuidFrom(rand),
    l: uuidFrom(rand),
    c: uuidFrom(rand),
    i
  }))
  const graph = client.selectGraph(name)
  for (const rows of batches(pairs, 2000)) {
    await graph.query(
      `UNWIND $rows AS r ` +
        `CREATE (:ForkMark)-[:MARKS {opened: $at + 2, closed: -1}]->(p:Fact {id: r.p, content: 'Choose a queue for area ' + toString(r.i), norm: 'choose a queue for area ' + toString(r.i), written_by: 'bench', session_id: 'bench:forks', created_at: $at, stale_at: $never}) ` +
        `CREATE (w:Fact {id: r.w, content: 'Use Redis streams', norm: 'use redis streams', written_by: 'cursor', session_id: 'bench:forks', created_at: $at + 1, stale_at: $never})-[:BUILDS_ON]->(p) ` +
        `CREATE (l:Fact {id: r.l, content: 'Use Kafka', norm: 'use kafka', written_by: 'codex-cli', session_id: 'bench:forks', created_at: $at + 2, stale_at: $never})-[:BUILDS_ON]->(p) ` +
        `CREATE (:Fact {id: r.c, content: 'Kafka topic per tenant', norm: 'kafka topic per tenant', written_by: 'codex-cli', session_id: 'bench:forks', created_at: $at + 3, stale_at: $never})-[:BUILDS_ON]->(l)`,
      { params: { rows: rows as never, at, never: neverStale } }
    )
  }
  return pairs.map((x) => ({ winner: x.w, loser: x.l }))
}
