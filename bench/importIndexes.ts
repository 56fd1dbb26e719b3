/**
 * `node --import tsx bench/importIndexes.ts [facts] [variants]` (default 20,000; variants a comma list
 * of the names below, default all): imports a generated memory (bench/memoryFile.ts) into a throwaway
 * graph on FALKORDB_HOST/FALKORDB_PORT once a variant, the variant's Fact indexes dropped after the
 * schema check and before the first fact, and prints the server's own time ("Query internal
 * execution time") of the batches' CREATE statements and of the statements after them: what each
 * index costs a batch. A variant that dropped indexes then makes them again and waits for them to be
 * OPERATIONAL, and that time is printed too (the import's alternative: build them once at the end).
 */
import { Effect, Layer, Redacted, Schema } from "effect"
import { Graph } from "falkordb"
import { randomBytes } from "node:crypto"
import { loadavg } from "node:os"
import { relayStack } from "../src/layers/assembly/stacks.js"
import { internalMillis } from "../src/layers/database/slowStatements.js"
import { importText } from "../src/layers/transfer/transferText.js"
import { GraphDatabase } from "../src/services/GraphDatabase.js"
import { Settings } from "../src/services/Settings.js"
import { memoryFile, memoryText } from "./memoryFile.js"

const n = Number(process.argv[2] ?? 20_000)
const server = {
  host: process.env["FALKORDB_HOST"] ?? "127.0.0.1",
  port: Number(process.env["FALKORDB_PORT"] ?? 6379),
  password: process.env["FALKORDB_PASSWORD"] ?? ""
}

const range = (p: string) => ({
  drop: `DROP INDEX FOR (x:Fact) ON (x.${p})`,
  make: `CREATE INDEX FOR (x:Fact) ON (x.${p})`
})
const fullText = {
  drop: "CALL db.idx.fulltext.drop('Fact')",
  // The label's one index keeps its language and stopwords when its full-text field is dropped, and
  // refuses them given again ("Can not override index configuration").
  make: "CALL db.idx.fulltext.createNodeIndex('Fact', 'content')"
}
const variants: Record<string, ReadonlyArray<{ drop: string; make: string }>> = {
  all: [],
  fulltext: [fullText],
  created_at: [range("created_at")],
  session_id: [range("session_id")],
  merge_depth: [range("merge_depth")],
  root: [range("root")],
  "all-but-id-root": [fullText, range("created_at"), range("session_id"), range("merge_depth")]
}
const chosen = (process.argv[3] ?? Object.keys(variants).join(",")).split(",")

/** Server ms of every statement by its first 40 characters, from the replies' metadata. */
let times = new Map<string, Array<number>>()
const query = Graph.prototype.query
Graph.prototype.query = async function(this: Graph, q: unknown, o: unknown) {
  const reply = await query.call(this, q as never, o as never)
  const ms = internalMillis(reply.metadata as never)
  const key = String(q).slice(0, 40)
  if (ms !== undefined) times.set(key, [...(times.get(key) ?? []), ms])
  return reply
} as typeof query

const file = memoryFile({ threads: Math.ceil(n / 50), perThread: 50 })
const text = memoryText(file)

const variant = (name: string) => {
  const graph = `bench_indexes_${randomBytes(4).toString("hex")}`
  const settings = Layer.succeed(Settings, {
    database: { _tag: "HostPort", host: server.host, port: server.port, password: Redacted.make(server.password) },
    graph,
    rateLimitPerMinute: 1_000_000
  })
  return Effect.gen(function*() {
    const db = yield* GraphDatabase
    yield* db.read("RETURN 1 AS one")
    for (const i of variants[name]!) yield* db.write(i.drop)
    times = new Map()
    const t0 = performance.now()
    yield* importText(text, { merge: false })
    const seconds = (performance.now() - t0) / 1000
    const stat = (prefix: string) => {
      const xs = [...times].filter(([k]) => k.startsWith(prefix)).flatMap(([, v]) => v)
      const sum = xs.reduce((a, b) => a + b, 0)
      return `${(sum / Math.max(1, xs.length)).toFixed(1)} avg, ${Math.max(0, ...xs).toFixed(1)} max`
    }
    const t1 = performance.now()
    for (const i of variants[name]!) yield* db.write(i.make)
    // Until every index of the graph is OPERATIONAL (FalkorDB builds an index over existing nodes in the background).
    const Row = Schema.Struct({ status: Schema.String })
    let building = 0
    for (;;) {
      const rows = yield* db.read("CALL db.indexes() YIELD status RETURN status", {}, Row)
      if (rows.every((r) => r.status === "OPERATIONAL")) break
      building++
      yield* Effect.sleep("50 millis")
    }
    const rebuild = (performance.now() - t1) / 1000
    console.log(
      `${name.padEnd(16)} ${seconds.toFixed(1).padStart(6)} s  CREATE ${
        stat("UNWIND $rows AS r CREATE (:Fact").padEnd(20)
      }` +
        `  after ${stat("UNWIND $decisions").padEnd(20)}  rebuild ${rebuild.toFixed(2)} s (${building} polls)`
    )
    yield* db.dropGraph
  }).pipe(Effect.provide(relayStack(settings)))
}

console.log(`${file.facts} facts, load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
Effect.runPromise(Effect.forEach(chosen, variant, { discard: true })).then(
  () => console.log(`load after ${loadavg().map((l) => l.toFixed(2)).join(" ")}`),
  (e) => {
    console.error(e)
    process.exit(1)
  }
)
