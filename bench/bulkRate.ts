/**
 * `node --import tsx bench/bulkRate.ts [facts]`: the bulk path's rate (src/bulk/bulkSave.ts) on
 * FALKORDB_HOST/FALKORDB_PORT (default 127.0.0.1:6379), into a throwaway graph: facts/s end to end
 * (checks, secret scanner, statements) and the time spent waiting on the statements themselves.
 * Shape: 1% roots, the rest children of them (in the same call), ~60 characters of text each.
 */
import { Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { bulkSave } from "../src/bulk/bulkSave.js"
import { relayStack } from "../src/layers/assembly/stacks.js"
import { GraphDatabase } from "../src/services/GraphDatabase.js"
import { Settings } from "../src/services/Settings.js"

const n = Number(process.argv[2] ?? 20_000)
const graph = `bench_bulk_${randomBytes(4).toString("hex")}`
const settings = Layer.succeed(Settings, {
  database: {
    _tag: "HostPort",
    host: process.env["FALKORDB_HOST"] ?? "127.0.0.1",
    port: Number(process.env["FALKORDB_PORT"] ?? 6379),
    password: Redacted.make(process.env["FALKORDB_PASSWORD"] ?? "")
  },
  graph,
  rateLimitPerMinute: 1_000_000
})
let inStatements = 0
const timed = <A, E>(run: Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const t = performance.now()
    return Effect.ensuring(
      run,
      Effect.sync(() => {
        inStatements += performance.now() - t
        if (process.env["BULK_TRACE"] !== undefined) console.error(`${(performance.now() - t).toFixed(0)} ms`)
      })
    )
  })
const stack = relayStack(settings, {
  wrap: (db) => ({
    ...db,
    write: (q, p, s) => timed(db.write(q, p, s as never)),
    read: (q, p, s) => timed(db.read(q, p, s as never))
  } as GraphDatabase["Type"])
})

const roots = Math.max(1, Math.floor(n / 100))
const items = Array.from({ length: n }, (_, i) => ({
  content: `Bulk fact ${i}: the service on topic ${i % roots} answers within ${i % 97} ms`,
  written_by: `loader-${i % 4}`,
  session_id: "bulk-bench",
  ...(i < roots ? { request_id: `root-${i}` } : { parent_request_id: `root-${i % roots}` })
}))

const program = Effect.gen(function*() {
  const started = performance.now()
  const saved = yield* bulkSave(items)
  const seconds = (performance.now() - started) / 1000
  console.log(
    `bulk path: ${saved.length} facts in ${seconds.toFixed(2)} s = ${Math.round(saved.length / seconds)} facts/s ` +
      `(${(inStatements / 1000).toFixed(2)} s waiting on statements; machine shared)`
  )
  yield* Effect.flatMap(GraphDatabase, (db) => Effect.ignore(db.dropGraph))
})

Effect.runPromise(Effect.provide(program, stack)).catch((e) => {
  console.error(e)
  process.exit(1)
})
