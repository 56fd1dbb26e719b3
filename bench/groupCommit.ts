/**
 * `npm run bench:group-commit`: group commit for saves (src/layers/factStore/groupCommit.ts) end to
 * end, in one run, with it off (RELAY_SAVE_BATCH=1: each save its own statement, as before) and on
 * (the default), alternated per measurement so load drifts over both alike:
 * - save p50 at one caller over stdio (must not be worse);
 * - saves/s with one `relay --http` and 16 callers (target >= 2x off);
 * - saves/s with 4 stdio processes x 4 callers (reported);
 * - saves/s with one stdio process and 16 callers (a control: the same process without HTTP).
 * Each throughput run also reports how many saves a write statement carried (1.0: nothing batched),
 * the read statements a save (the suggested-links read, batched alike with group commit on)
 * and the CPU time a save cost the Relay process(es), FalkorDB and the bench client: on 2 shared
 * cores the saves/s are bound by their sum, not by the statement's wait.
 * Each save goes under a fresh parent from the generated graph (BENCH_FACTS, default 100,000), as
 * `npm run bench`'s throughput does. Needs `npm run build`. Not part of npm test.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { randomBytes } from "node:crypto"
import { loadavg } from "node:os"
import { databaseCounters, ownCpuMs, processCpuMs } from "./cpuShare.js"
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

/**
 * One `relay --http` with a lean HTTP client (leanHttpTransport.ts) on the workspace of the loaded
 * graph: one MCP session whose `callers` concurrent calls each have a connection, as the SDK's
 * transport on fetch gives them. (With one connection the calls went one after another: the server
 * saw one save at a time and group commit had nothing to batch.)
 */
const httpRelay = async (mode: Mode, callers: number) => {
  const server = await startHttpRelay({ ...envOf(mode), RELAY_TOKEN_GRAPH: tokenGraph })
  const mcp = new Client({ name: "relay-bench", version: "0.0.0" })
  await mcp.connect(new LeanHttpTransport(new URL(server.url), token, callers))
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
    pid: server.process.pid,
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
const throughput = async (
  calls: ReadonlyArray<BenchCall>,
  callers: number,
  session: string,
  pids: ReadonlyArray<number | undefined>
) => {
  let saved = 0
  let failed = 0
  // One save each first, outside the count: a process's first statement on the graph runs its schema
  // check (a few dozen statements), which is no save's cost.
  await Promise.all(calls.map(async (call) => {
    const parent = pool.take()
    const r = await call("relay_save_fact", {
      content: "Group commit bench: warm-up",
      written_by: "bench-writer",
      session_id: session,
      parent_fact_id: parent
    })
    pool.give(r.fact.id)
  }))
  const relayCpu = () => pids.reduce<number>((sum, pid) => sum + processCpuMs(pid), 0)
  const before = { relay: relayCpu(), client: ownCpuMs(), db: await databaseCounters(client) }
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
  const perSecond = saved / ((performance.now() - started) / 1000)
  const db = await databaseCounters(client)
  const share: Share = {
    perStatement: saved / (db.writes - before.db.writes),
    readsPerSave: (db.reads - before.db.reads) / saved,
    relay: (relayCpu() - before.relay) / saved,
    db: (db.cpuMs - before.db.cpuMs) / saved,
    client: (ownCpuMs() - before.client) / saved
  }
  return { perSecond, failed, share }
}

/** A throughput run's saves a write statement, and CPU ms a save: Relay's processes, FalkorDB's, the bench client's. */
interface Share {
  readonly perStatement: number
  /** Read statements a save: the suggested-links read (links.ts), batched with group commit on. */
  readonly readsPerSave: number
  readonly relay: number
  readonly db: number
  readonly client: number
}
const shares: Record<string, Array<Share>> = {}
const keep = (key: string, share: Share) => (shares[key] ??= []).push(share)
const shown = (s: Share) =>
  `${s.perStatement.toFixed(1)} saves a statement, ${s.readsPerSave.toFixed(2)} reads a save; CPU ms a save: relay ${
    s.relay.toFixed(2)
  }, ` +
  `db ${s.db.toFixed(2)}, client ${s.client.toFixed(2)}`

const failures: Record<string, number> = {}

const results: Record<Mode, { p50: Array<number>; http: Array<number>; procs: Array<number>; one: Array<number> }> = {
  off: { p50: [], http: [], procs: [], one: [] },
  on: { p50: [], http: [], procs: [], one: [] }
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
        const t = await throughput(procs.map((p) => p.call), 4, session, procs.map((p) => p.pid))
        results[mode].procs.push(t.perSecond)
        failures[`${mode} 4x4`] = (failures[`${mode} 4x4`] ?? 0) + t.failed
        keep(`${mode} 4x4`, t.share)
      } finally {
        await Promise.all(procs.map((p) => p.close()))
      }
      // The control: one stdio process, 16 callers (what one process does without HTTP).
      const single = await stdioClient(envOf(mode))
      try {
        const t = await throughput([single.call], 16, session, [single.pid])
        results[mode].one.push(t.perSecond)
        failures[`${mode} 1x16`] = (failures[`${mode} 1x16`] ?? 0) + t.failed
        keep(`${mode} stdio 1x16`, t.share)
      } finally {
        await single.close()
      }
      // One HTTP server, 16 callers.
      const http = await httpRelay(mode, 16)
      try {
        const t = await throughput([http.call], 16, session, [http.pid])
        results[mode].http.push(t.perSecond)
        failures[`${mode} http`] = (failures[`${mode} http`] ?? 0) + t.failed
        keep(`${mode} http x16`, t.share)
      } finally {
        await http.close()
      }
      log(
        `  round ${round + 1}, ${mode}: p50 ${results[mode].p50.at(-1)!.toFixed(2)} ms, ` +
          `4x4 ${results[mode].procs.at(-1)!.toFixed(0)}/s, stdio 1x16 ${results[mode].one.at(-1)!.toFixed(0)}/s, ` +
          `http x16 ${results[mode].http.at(-1)!.toFixed(0)}/s (${shown(shares[`${mode} http x16`]!.at(-1)!)}); ` +
          `load ${loadavg()[0]!.toFixed(2)}`
      )
    }
  }
  const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const row = (label: string, key: "p50" | "http" | "procs" | "one", unit: string, target: string) => {
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
  log(row("saves/s, 1 stdio process x 16 callers", "one", "/s", "control"))
  log("\nwhere a save's CPU goes (medians of the rounds):")
  log("| run | saves a statement | read statements a save | relay ms | FalkorDB ms | bench client ms | sum ms |")
  log("|---|---|---|---|---|---|---|")
  for (const [key, runs] of Object.entries(shares)) {
    const m = (f: (s: Share) => number) => median(runs.map(f))
    log(
      `| ${key} | ${m((s) => s.perStatement).toFixed(1)} | ${m((s) => s.readsPerSave).toFixed(2)} | ${
        m((s) => s.relay).toFixed(2)
      } | ${m((s) => s.db).toFixed(2)} | ${m((s) => s.client).toFixed(2)} | ${
        m((s) => s.relay + s.db + s.client).toFixed(2)
      } |`
    )
  }
  log(`failed saves (not counted above): ${JSON.stringify(failures)}; load average at end ${loadavg()[0]!.toFixed(2)}`)
} finally {
  await client.selectGraph(graphName).delete().catch(() => undefined)
  await client.selectGraph(tokenGraph).delete().catch(() => undefined)
  await client.close()
  await db.stop()
}
