/**
 * Where Relay's in-process cost over the bare query goes, layer by layer, on a small graph:
 *
 *   node --import tsx bench/overhead.ts      (OVERHEAD_CALLS=2000 by default)
 *
 * For relay_get_context and relay_save_fact it times, interleaved round by round so drift hits
 * every level alike: the same Cypher on the bare client (floor), GraphDatabase.read/write
 * (FalkorDbLive.run), the FactStore operation, the tool handler, and callTool (decode, policies,
 * handler, result mapping). Each level is reported as p50 and mean over the floor. Last, the row
 * decode alone (db.read's Schema step, layers/database/decodeRows.ts) on 200 fact maps read raw, per fact.
 */
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows } from "../src/layers/database/decodeRows.js"
import { FactColumn, factMap } from "../src/layers/factStore/projection.js"
import { callTool, type ToolResult } from "../src/mcp/callTool.js"
import { FactStore } from "../src/services/FactStore.js"
import { GraphDatabase } from "../src/services/GraphDatabase.js"
import { ToolCall } from "../src/services/ToolCall.js"
import { tools } from "../src/tools/registry.js"
import { bareClient, openDatabase } from "./db.js"
import { generateGraph, loadGraph } from "./graph.js"
import { recordedRelay, replay } from "./relay.js"
import { summarise } from "./sampler.js"

const calls = Number(process.env.OVERHEAD_CALLS ?? 2000)
const db = await openDatabase()
const client = await bareClient(db)
const graphName = `relay_overhead_${randomUUID().slice(0, 6)}`
const g = generateGraph(1000, Date.now() - 60 * 60 * 1000)
await loadGraph(client, graphName, g)
const graph = client.selectGraph(graphName)

const { recorder, runtime } = recordedRelay(db, graphName)
const tool = (name: string) => tools.find((t) => t.name === name)!

try {
  const ids = g.facts.map((f) => f.id)
  let k = 0
  const nextId = () => ids[(k++ * 7919) % ids.length]!
  const saveArgs = () => ({
    content: `Overhead: TTL stays at ${k++ % 13} minutes`,
    written_by: "bench",
    session_id: "bench:o",
    parent_fact_id: nextId()
  })

  // Record each tool's statements once, for the floor and the GraphDatabase level.
  const rec = async (name: string, args: Record<string, unknown>) =>
    (await recorder.record(() => runtime.runPromise(callTool(tool(name), args)))).trace
  const ctxArgs = { fact_id: ids[0]! }
  const ctxTrace = await rec("relay_get_context", ctxArgs)
  const saveA = saveArgs()
  const saveTrace = await rec("relay_save_fact", saveA)
  const ctxStmt = ctxTrace[0]![0]!
  const saveStmt = saveTrace[0]![0]!

  const expectOk = (r: ToolResult) => {
    if (r.isError === true) throw new Error(r.content[0]?.text)
  }
  type Level = readonly [string, () => Promise<unknown>]
  const suites: ReadonlyArray<readonly [string, ReadonlyArray<Level>]> = [
    ["relay_get_context", [
      ["floor (bare client)", () => {
        const id = nextId()
        return replay(graph, ctxTrace, new Map([[ctxArgs.fact_id, id]]))
      }],
      [
        "GraphDatabase.read",
        () =>
          runtime.runPromise(
            Effect.flatMap(GraphDatabase, (d) => d.read(ctxStmt.cypher, { ...ctxStmt.params, id: nextId() }))
          )
      ],
      [
        "FactStore.context",
        () => runtime.runPromise(Effect.flatMap(FactStore, (s) => s.context(nextId(), { limit: 50, cursor: null })))
      ],
      [
        "handler",
        () =>
          runtime.runPromise(
            tool("relay_get_context").handler({ fact_id: nextId(), limit: 50 }).pipe(
              Effect.provideService(ToolCall, { id: "x" })
            )
          )
      ],
      ["callTool", () => runtime.runPromise(callTool(tool("relay_get_context"), { fact_id: nextId() })).then(expectOk)]
    ]],
    ["relay_save_fact", [
      ["floor (bare client)", () => {
        const a = saveArgs()
        return replay(
          graph,
          saveTrace,
          new Map([[saveA.parent_fact_id, a.parent_fact_id], [saveStmt.params!.id as string, randomUUID()]])
        )
      }],
      [
        "GraphDatabase.write",
        () =>
          runtime.runPromise(
            Effect.flatMap(GraphDatabase, (d) =>
              d.write(saveStmt.cypher, { ...saveStmt.params!, id: randomUUID(), parentId: nextId(), now: Date.now() }))
          )
      ],
      ["callTool", () => runtime.runPromise(callTool(tool("relay_save_fact"), saveArgs())).then(expectOk)]
    ]]
  ]
  for (const [name, levels] of suites) {
    const samples = levels.map(() => [] as Array<number>)
    for (let i = 0; i < 200; i++) for (const [, run] of levels) await run()
    for (let i = 0; i < calls; i++) {
      for (let l = 0; l < levels.length; l++) {
        const t0 = performance.now()
        await levels[l]![1]()
        samples[l]!.push(performance.now() - t0)
      }
    }
    const floor = summarise(samples[0]!)
    console.log(`${name} (${calls} calls per level, ms)`)
    levels.forEach(([label], l) => {
      const s = summarise(samples[l]!)
      console.log(
        `  ${label.padEnd(22)} p50 ${s.p50.toFixed(3)}  mean ${s.mean.toFixed(3)}  ` +
          `+p50 ${(s.p50 - floor.p50).toFixed(3)}  +mean ${(s.mean - floor.mean).toFixed(3)}`
      )
    })
  }

  let shown = 0
  for (let i = 0; i < 100; i++) {
    shown += (await runtime.runPromise(FactStore.pipe(Effect.flatMap((st) =>
      st.context(nextId(), { limit: 50, cursor: null })
    )))).items.length
  }
  console.log(`relay_get_context above: ${(shown / 100).toFixed(1)} facts a call on average`)

  const raw = (await graph.roQuery(`MATCH (f:Fact) WITH f LIMIT 200 RETURN ${factMap("f")} AS fact`)).data ?? []
  const decode = decodeRows(FactColumn)
  const rounds = Math.max(Math.round(calls / 4), 50)
  for (let i = 0; i < rounds; i++) Effect.runSync(decode(raw))
  const t0 = performance.now()
  for (let i = 0; i < rounds; i++) Effect.runSync(decode(raw))
  const perFact = (performance.now() - t0) / rounds / raw.length
  console.log(`row decode (FactColumn, ${raw.length} facts x ${rounds}): ${(perFact * 1000).toFixed(2)} us a fact`)
} finally {
  await runtime.dispose()
  await graph.delete().catch(() => undefined)
  await client.close()
  await db.stop()
}
