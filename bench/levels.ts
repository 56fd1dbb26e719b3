import { Effect } from "effect"
import type { FalkorDB, Graph } from "falkordb"
import { randomUUID } from "node:crypto"
import { internalMillis } from "../src/layers/database/slowStatements.js"
import { materialise } from "../src/layers/factStore/rankGenerations.js"
import type { EncodedOutputOf } from "../test/support/toolOutputs.js"
import { statements } from "./bulkLoad.js"
import { type GeneratedGraph, makeForkPairs, rng } from "./graph.js"
import { type inProcessRelay, replay, type StdioRelay } from "./relay.js"
import { sample, type SampleOptions, type Stats } from "./sampler.js"
import type { ParentPool } from "./throughput.js"

export type Level = "floor" | "inproc" | "e2e"
export const levels: ReadonlyArray<Level> = ["floor", "inproc", "e2e"]
export interface Failed {
  readonly error: string
}
export type ToolLatency = Record<Level, Stats | Failed>
export const isFailed = (x: Stats | Failed): x is Failed => "error" in x

/** A level that fails is recorded as failed (with why), and the run goes on. */
const orFailed = (run: () => Promise<Stats>): Promise<Stats | Failed> =>
  run().catch((e: unknown) => {
    const m = String(e)
    return {
      error: /ReadBuffer|Connection closed/i.test(m)
        ? "reply over the MCP SDK's 10 MB stdio message limit (connection closed)"
        : m.slice(0, 200)
    }
  })

type Args = Record<string, unknown>

/** The new fact's id in a relay_save_fact answer (the scenarios hold tools of every kind, so results arrive untyped). */
const savedId = (result: unknown) => (result as EncodedOutputOf<"relay_save_fact">).fact.id

/** How one tool is driven: the input of call i, and which recorded values a floor call swaps for i's. */
interface Scenario {
  readonly tool: string
  /** The row's name when one tool is measured in several ways (default: the tool). */
  readonly key?: string
  readonly options?: SampleOptions
  readonly prepare?: () => Promise<void>
  readonly args: (i: number) => Args
  /** The ids in the arguments (swapped in the floor's replay). */
  readonly ids: (args: Args) => ReadonlyArray<string>
  /** Called with each result (e.g. to hand a new fact back as a fresh parent). */
  readonly after?: (result: unknown, args: Args) => void
}

/**
 * One generation of importance built on the bare client, each statement timed: the longest by the
 * client (round trip and reply decoding included) and by the server's own clock (the bound).
 */
const materialiseTimed = async (graph: Graph) => {
  let longest = 0
  let longestServer = 0
  let slowest = ""
  let count = 0
  const start = performance.now()
  await Effect.runPromise(materialise(
    statements(async (cypher, params) => {
      const t = performance.now()
      const reply = await graph.query(cypher, { params: params as never })
      longest = Math.max(longest, performance.now() - t)
      const server = internalMillis(reply.metadata) ?? 0
      if (server > longestServer) [longestServer, slowest] = [server, cypher.slice(0, 40)]
      count++
      return reply.data ?? []
    }),
    { me: "bench", force: true }
  ))
  return { seconds: (performance.now() - start) / 1000, statements: count, longest, longestServer, slowest }
}

const readOptions: SampleOptions = { warmup: 20, min: 20, max: 400, budgetMs: 1500 }
const heavyOptions: SampleOptions = { warmup: 2, min: 5, max: 60, budgetMs: 4000 }
/** Fewer writes, so the graph under measurement stays close to its generated shape. */
const writeOptions: SampleOptions = { warmup: 10, min: 40, max: 150, budgetMs: 1500 }

export interface LatencyContext {
  readonly client: FalkorDB
  readonly graphName: string
  readonly g: GeneratedGraph
  readonly inproc: ReturnType<typeof inProcessRelay>
  readonly e2e: StdioRelay
  readonly pool: ParentPool
}

export const measureTools = async (
  cx: LatencyContext,
  log: (s: string) => void
): Promise<Record<string, ToolLatency>> => {
  const graph: Graph = cx.client.selectGraph(cx.graphName)
  const rand = rng(cx.g.facts.length * 31)
  const targets = Array.from({ length: 512 }, () => cx.g.facts[Math.floor(rand() * cx.g.facts.length)]!.id)
  const byAge = [...cx.g.facts].sort((a, b) => b.created_at - a.created_at)
  const since = new Date(byAge[Math.min(49, byAge.length - 1)]!.created_at).toISOString()

  let pairs: Array<{ winner: string; loser: string }> = []
  const pairBudget = 3 * (writeOptions.warmup + writeOptions.max) + 10

  const scenarios: ReadonlyArray<Scenario> = [
    {
      tool: "relay_get_context",
      args: (i) => ({ fact_id: targets[i % targets.length] }),
      ids: (a) => [a.fact_id as string]
    },
    {
      tool: "relay_get_impact",
      args: (i) => ({ fact_id: targets[i % targets.length] }),
      ids: (a) => [a.fact_id as string]
    },
    { tool: "relay_get_current_state", args: () => ({ limit: 20 }), ids: () => [] },
    { tool: "relay_detect_conflicts", args: () => ({}), ids: () => [] },
    { tool: "relay_get_briefing", args: () => ({ my_name: "bench-reader", since }), ids: () => [] },
    {
      tool: "relay_get_important_facts",
      // Issue 42: read from the materialised generation, built here as the leased process would.
      prepare: async () => {
        const timed = await materialiseTimed(graph)
        log(
          `  importance materialised: ${timed.seconds.toFixed(1)} s, ${timed.statements} statements, ` +
            `the longest ${timed.longest.toFixed(1)} ms (client time, round trip included), ` +
            `${timed.longestServer.toFixed(1)} ms server (${timed.slowest}...)`
        )
      },
      args: () => ({ limit: 10 }),
      ids: () => []
    },
    // Issue 42's target: a page of 20 clusters, 5 facts each; the studio's threads list; a thread scope.
    { tool: "relay_get_clusters", args: () => ({ limit: 20, facts_per_cluster: 5 }), ids: () => [] },
    {
      tool: "relay_get_clusters",
      key: "studio threads list",
      args: () => ({ limit: 50, facts_per_cluster: 1 }),
      ids: () => []
    },
    {
      tool: "relay_get_current_state",
      key: "thread scope (current_state)",
      args: (i) => ({ limit: 20, thread: targets[i % targets.length] }),
      ids: (a) => [a.thread as string]
    },
    {
      tool: "relay_get_clusters",
      key: "clusters (every one, 2,000 facts)",
      options: heavyOptions,
      args: () => ({}),
      ids: () => []
    },
    {
      tool: "relay_save_fact",
      options: writeOptions,
      args: (i) => ({
        content: `Bench: the cache TTL for tenant ${i % 97} stays at ${i % 13} minutes`,
        written_by: "bench-writer",
        session_id: "bench:latency",
        parent_fact_id: cx.pool.take()
      }),
      ids: (a) => [a.parent_fact_id as string],
      after: (r) => {
        cx.pool.give(savedId(r))
      }
    },
    {
      tool: "relay_resolve_conflict",
      options: writeOptions,
      prepare: async () => {
        pairs = await makeForkPairs(cx.client, cx.graphName, pairBudget, Date.now(), cx.g.facts.length)
      },
      args: () => {
        const p = pairs.shift()
        if (p === undefined) throw new Error("out of fork pairs")
        return {
          winner_fact_id: p.winner,
          loser_fact_id: p.loser,
          reason: "Streams are enough at our volume",
          resolved_by: "bench-judge"
        }
      },
      ids: (a) => [a.winner_fact_id as string, a.loser_fact_id as string]
    }
  ]

  const out: Record<string, ToolLatency> = {}
  for (const s of scenarios) {
    await s.prepare?.()
    const o = s.options ?? readOptions
    // Record what the app sends for one call; the floor replays it with this call's ids swapped in.
    const firstArgs = s.args(0)
    // A read runs once before: what it learns of the graph (current_state's first window) is in
    // what the later calls send, so it is in the recording too.
    if (s.options === undefined) await cx.inproc.call(s.tool, firstArgs).catch(() => undefined)
    // A tool that fails at this size (clusters' WCC passes the 2 s TIMEOUT at 1M) is reported, and the rest still run.
    const recorded = await cx.inproc.recorder.record(() => cx.inproc.call(s.tool, firstArgs)).catch((e: unknown) => ({
      error: e instanceof Error ? e.message.split("\n")[0]! : String(e)
    }))
    const key = s.key ?? s.tool
    if ("error" in recorded) {
      out[key] = { floor: recorded, inproc: recorded, e2e: recorded }
      log(`  ${key.padEnd(26)} failed (${recorded.error})`)
      continue
    }
    const { result, trace } = recorded
    s.after?.(result, firstArgs)
    const recordedIds = s.ids(firstArgs)
    const recordedNew: string | undefined = s.tool === "relay_save_fact" ? savedId(result) : undefined

    const floor = await orFailed(() =>
      sample(async (i) => {
        const a = s.args(i)
        const swap = new Map<string, string>()
        s.ids(a).forEach((id, k) => swap.set(recordedIds[k] as string, id))
        if (recordedNew !== undefined) {
          const fresh = randomUUID()
          swap.set(recordedNew, fresh)
          s.after?.({ fact: { id: fresh } }, a)
        }
        await replay(graph, trace, swap)
      }, o)
    )
    const through = (relay: Pick<typeof cx.inproc, "call">) =>
      orFailed(() =>
        sample(async (i) => {
          const a = s.args(i)
          // Not `s.after?.(await relay.call(...))`: an optional call skips its arguments when there is
          // no `after`, and every read was timed as doing nothing (0.00 ms, since 7601517).
          const r = await relay.call(s.tool, a)
          s.after?.(r, a)
        }, o)
      )
    const inproc = await through(cx.inproc)
    const e2e = await through(cx.e2e)
    out[key] = { floor, inproc, e2e }
    // A level under half its floor did not run the calls it timed: say so rather than print it.
    const p50 = (x: Stats | Failed) =>
      isFailed(x)
        ? `failed (${x.error})`
        : `${x.p50.toFixed(2)} ms${
          !isFailed(floor) && x !== floor && x.p50 < floor.p50 / 2 ? " (SUSPECT: under its floor)" : ""
        }`
    log(
      `  ${key.padEnd(26)} floor ${p50(floor)}  in-process ${p50(inproc)}  e2e ${
        p50(e2e)
      } (p50, ${trace.flat().length} statements)`
    )
  }
  return out
}
