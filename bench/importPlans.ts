/**
 * `node --import tsx bench/importPlans.ts [facts] [from]` (default 20,000 and 80% of them): imports a
 * generated memory (bench/memoryFile.ts) into a throwaway graph on FALKORDB_HOST/FALKORDB_PORT, and
 * runs each kind of statement the import sends once past `from` facts under GRAPH.PROFILE (a write
 * whose rows the import ignores runs as the profile instead of itself, so the graph is the import's
 * own). Prints each statement's server time and its costliest operators: where a batch's time goes.
 */
import { Effect, Layer, Redacted, type Schema } from "effect"
import { FalkorDB } from "falkordb"
import { randomBytes } from "node:crypto"
import { relayStack } from "../src/layers/assembly/stacks.js"
import { importText } from "../src/layers/transfer/transferText.js"
import { type CypherParams, GraphDatabase, type GraphDatabaseShape } from "../src/services/GraphDatabase.js"
import { Settings } from "../src/services/Settings.js"
import { inlineParams } from "../test/support/cypherLiteral.js"
import { memoryFile, memoryText } from "./memoryFile.js"

const n = Number(process.argv[2] ?? 20_000)
const from = Number(process.argv[3] ?? Math.floor(n * 0.8))
const server = {
  host: process.env["FALKORDB_HOST"] ?? "127.0.0.1",
  port: Number(process.env["FALKORDB_PORT"] ?? 6379),
  password: process.env["FALKORDB_PASSWORD"] ?? ""
}
const graph = `bench_plans_${randomBytes(4).toString("hex")}`

const program = Effect.gen(function*() {
  const db = yield* GraphDatabase
  const raw = yield* Effect.acquireRelease(
    Effect.promise(() =>
      FalkorDB.connect({
        socket: { host: server.host, port: server.port },
        ...(server.password === "" ? {} : { password: server.password })
      })
    ),
    (c) => Effect.promise(() => c.close())
  )
  let written = 0
  const seen = new Set<string>()
  const profiled = (q: string, p: CypherParams) =>
    Effect.promise(async () => {
      if (q.startsWith("UNWIND $rows AS r CREATE (:Fact")) written += (p["rows"] as Array<unknown>).length
      if (written < from || seen.has(q)) return false
      seen.add(q)
      const inline = inlineParams(p)
      const plan = (await raw.selectGraph(graph).profile(`CYPHER ${inline} ${q}`)) as Array<string>
      const ops = plan.map((line) => {
        const m = /^(\s*)(.*?)\s*\|\s*Records produced: (\d+), Execution time: ([\d.]+) ms/.exec(line)
        return m === null ? null : { op: m[2]!, rows: Number(m[3]), ms: Number(m[4]) }
      }).filter((o) => o !== null)
      const total = ops.reduce((s, o) => s + o.ms, 0)
      console.log(`\n${total.toFixed(1)} ms  ${q.slice(0, 100)}`)
      for (const o of [...ops].sort((a, b) => b.ms - a.ms).slice(0, 5)) {
        console.log(`   ${o.ms.toFixed(2).padStart(8)} ms ${String(o.rows).padStart(7)} rows  ${o.op.slice(0, 90)}`)
      }
      return true
    })
  const recording: GraphDatabaseShape = {
    ...db,
    write: ((q: string, p?: CypherParams, s?: Schema.Schema<unknown>) =>
      s === undefined
        ? Effect.flatMap(profiled(q, p ?? {}), (done) => (done ? Effect.void : db.write(q, p ?? {})))
        : db.write(q, p ?? {}, s as never)) as GraphDatabaseShape["write"],
    read: ((q: string, p?: CypherParams, s?: Schema.Schema<unknown>) =>
      Effect.zipRight(profiled(q, p ?? {}), db.read(q, p ?? {}, s as never))) as GraphDatabaseShape["read"]
  }
  const file = memoryFile({ threads: Math.ceil(n / 50), perThread: 50 })
  yield* Effect.provideService(importText(memoryText(file), { merge: false }), GraphDatabase, recording)
  if (process.env["BENCH_KEEP"] === "1") {
    console.log(`kept graph ${graph}`)
  } else yield* db.dropGraph
})

const settings = Layer.succeed(Settings, {
  database: { _tag: "HostPort", host: server.host, port: server.port, password: Redacted.make(server.password) },
  graph,
  rateLimitPerMinute: 1_000_000
})

Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(relayStack(settings)))).catch((e) => {
  console.error(e)
  process.exit(1)
})
