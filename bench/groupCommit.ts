/**
 * `npm run bench:group-commit`: group commit for saves (src/layers/factStore/groupCommit.ts) end to
 * end, in one run, with it off (RELAY_SAVE_BATCH=1: each save its own statement, as before) and on
 * (the default), alternated per measurement so load drifts over both alike:
 * - save p50 at one caller over stdio (must not be worse);
 * - saves/s with one `relay --http` and 16 callers (target >= 2x off);
 * - saves/s with 4 stdio processes x 4 callers (reported).
 * Each save goes under a fresh parent from the generated graph (BENCH_FACTS, default 100,000), as
 * `npm run bench`'s throughput does. Needs `npm run build`. Not part of npm test.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { randomBytes } from "node:crypto"
import { loadavg } from "node:os"
import { bareClient, openDatabase, relayEnv } from "./db.js"
import { generateGraph, loadGraph, rng } from "./graph.js"
import { LeanHttpTransport } from "./leanHttpTransport.js"
import type { BenchCall } from "./relay.js"
import { stdioClient } from "./relay.js"
import { startHttpRelay, tokenCommand } from "./relayProcess.js"
import { summarise } from "./sampler.js"
import { ParentPool } from "./throughput.js"

const size = Number(process.env.BENCH_FACTS ?? 100_000)
const ms = Number(process.env.BENCH_MS ?? 3000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const log = (line: string) => process.stdout.write(`${line}\n`)

const db = await openDatabase()
const client = await bareClient(db)
// A team workspace's graph, so `relay --http` (its token's workspace) and stdio (RELAY_GRAPH) save into the same loaded graph.
const workspace = `benchgc${randomBytes(3).toString("hex")}`
const graphName = `relay_ws_${workspace}`
const tokenGraph = `relay_tokens_${workspace}`
const g = generateGraph(size, Date.now() - 60 * 60 * 1000)
await loadGraph(client, graphName, g)
const rand = rng(size)
const pool = new ParentPool([...g.leaves].sort(() => rand() - 0.5))
log(`${size} facts loaded; load average ${loadavg().map((n) => n.toFixed(2)).join(", ")}`)

const modes = { off: { RELAY_SAVE_BATCH: "1" }, on: {} } as const
type Mode = keyof typeof modes
const envOf = (mode: Mode) => ({ ...relayEnv(db, graphName), ...modes[mode] })

const token = (await tokenCommand({ ...envOf("off"), RELAY_TOKEN_GRAPH: tokenGraph }, [
  "create",
  "--name",
  "bench",
  "--workspace",
  workspace
])).stdout

/** One `relay --http` with a lean HTTP client (leanHttpTransport.ts) on the workspace of the loaded graph. */
const httpRelay = async (mode: Mode) => {
  const server = await startHttpRelay({ ...envOf(mode), RELAY_TOKEN_GRAPH: tokenGraph })
  const mcp = new Client({ name: "relay-bench", version: "0.0.0" })
  await mcp.connect(new LeanHttpTransport(new URL(server.url), token))
  await mcp.listTools()
  const call: BenchCall = async (name, args) => {
    // Over HTTP the writer is the token's name.
    const { written_by: _, ...rest } = args
    const r = await mcp.callTool({ name, arguments: rest }, undefined, { timeout: 120_000 })
    if (r.isError === true) throw new Error(JSON.stringify(r.content).slice(0, 300))
    return r.structuredContent as never
  }
  return {
    call,
    close: async () => {
      await mcp.close().catch(() => undefined)
      await server.stop()
    }
  }
}

/**
 * `callers` loops per call function for `ms`, each saving under a fresh parent; counts what was
 * acknowledged (a save that fails, e.g. past its time budget on a loaded machine, is counted apart).
 */
const throughput = async (calls: ReadonlyArray<BenchCall>, callers: number, session: string) => {
  let saved = 0
  let failed = 0
  const started = performance.now()
  const loop = async (call: BenchCall, k: number) => {
    while (performance.now() < started + ms) {
      const parent = pool.take()
      try {
        const r = await call("relay_save_fact", {
          content: `Group commit bench: caller ${k} notes build ${saved} is green`,
          written_by: "bench-writer",
          session_id: session,
          parent_fact_id: parent
        })
        pool.give(r.fact.id)
        saved++
      } catch {
        pool.give(parent)
        failed++
      }
    }
  }
  await Promise.all(calls.flatMap((call, c) => Array.from({ length: callers }, (_, k) => loop(call, c * 100 + k))))
  return { perSecond: saved / ((performance.now() - started) / 1000), failed }
}

const failures: Record<string, number> = {}

const results: Record<Mode, { p50: Array<number>; http: Array<number>; procs: Array<number> }> = {
  off: { p50: [], http: [], procs: [] },
  on: { p50: [], http: [], procs: [] }
}

try {
  for (let round = 0; round < rounds; round++) {
    for (const mode of (round % 2 === 0 ? ["off", "on"] : ["on", "off"]) as Array<Mode>) {
      const session = `bench:gc:${mode}:${randomBytes(3).toString("hex")}`
      // p50 at one caller, stdio.
      const one = await stdioClient(envOf(mode))
      try {
        const samples: Array<number> = []
        for (let i = 0; i < 120; i++) {
          const parent = pool.take()
          const t = performance.now()
          const r = await one.call("relay_save_fact", {
            content: `Group commit bench: caller 0 notes build ${i} is green`,
            written_by: "bench-writer",
            session_id: session,
            parent_fact_id: parent
          })
          if (i >= 20) samples.push(performance.now() - t)
          pool.give(r.fact.id)
        }
        results[mode].p50.push(summarise(samples).p50)
      } finally {
        await one.close()
      }
      // 4 stdio processes x 4 callers.
      const procs = await Promise.all([0, 1, 2, 3].map(() => stdioClient(envOf(mode))))
      try {
        const t = await throughput(procs.map((p) => p.call), 4, session)
        results[mode].procs.push(t.perSecond)
        failures[`${mode} 4x4`] = (failures[`${mode} 4x4`] ?? 0) + t.failed
      } finally {
        await Promise.all(procs.map((p) => p.close()))
      }
      // One HTTP server, 16 callers.
      const http = await httpRelay(mode)
      try {
        const t = await throughput([http.call], 16, session)
        results[mode].http.push(t.perSecond)
        failures[`${mode} http`] = (failures[`${mode} http`] ?? 0) + t.failed
      } finally {
        await http.close()
      }
      log(
        `  round ${round + 1}, ${mode}: p50 ${results[mode].p50.at(-1)!.toFixed(2)} ms, ` +
          `4x4 ${results[mode].procs.at(-1)!.toFixed(0)}/s, http x16 ${results[mode].http.at(-1)!.toFixed(0)}/s; ` +
          `load ${loadavg()[0]!.toFixed(2)}`
      )
    }
  }
  const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const row = (label: string, key: "p50" | "http" | "procs", unit: string, target: string) => {
    const off = median(results.off[key])
    const on = median(results.on[key])
    return `| ${label} | ${off.toFixed(key === "p50" ? 2 : 0)} ${unit} | ${
      on.toFixed(key === "p50" ? 2 : 0)
    } ${unit} | ` +
      `x${(on / off).toFixed(2)} | ${target} |`
  }
  log(`\n${size} facts, ${rounds} rounds (median), ${ms} ms a throughput run:`)
  log("| measure | RELAY_SAVE_BATCH=1 (before) | group commit (default) | on / off | target |")
  log("|---|---|---|---|---|")
  log(row("save p50, 1 caller, stdio", "p50", "ms", "not worse"))
  log(row("saves/s, 1 HTTP server x 16 callers", "http", "/s", ">= x2"))
  log(row("saves/s, 4 stdio processes x 4 callers", "procs", "/s", "reported"))
  log(`failed saves (not counted above): ${JSON.stringify(failures)}; load average at end ${loadavg()[0]!.toFixed(2)}`)
} finally {
  await client.selectGraph(graphName).delete().catch(() => undefined)
  await client.selectGraph(tokenGraph).delete().catch(() => undefined)
  await client.close()
  await db.stop()
}
