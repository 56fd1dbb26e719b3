/**
 * `node --import tsx bench/import.ts [facts]` (default 1,000,000): `npm run import` of a generated
 * memory (bench/memoryFile.ts: threads of 50, forks, decisions, retractions, merges) into an empty
 * graph, against the bulk path (src/bulk/bulkSave.ts) on as many facts in the same run, on
 * FALKORDB_HOST/FALKORDB_PORT (default 127.0.0.1:6379), each into a throwaway graph. Prints a table:
 * seconds, facts/s, the slowest statement, and what `check-db --verify` finds in the import.
 * The aim (40): 1M facts in <= 90 s, at no less than the bulk path's facts/s.
 */
import { Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { bulkSave } from "../src/bulk/bulkSave.js"
import { relayStack } from "../src/layers/assembly/stacks.js"
import { verifyStored } from "../src/layers/factStore/verifyStored.js"
import { importText } from "../src/layers/transfer/transferText.js"
import { GraphDatabase } from "../src/services/GraphDatabase.js"
import { Settings } from "../src/services/Settings.js"
import { memoryFile, memoryText } from "./memoryFile.js"

const n = Number(process.argv[2] ?? 1_000_000)

const stackOn = (graph: string, slowest: { ms: number; q: string }) => {
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
  const timed = <A, E>(q: string, run: Effect.Effect<A, E>) =>
    Effect.suspend(() => {
      const t = performance.now()
      return Effect.ensuring(
        run,
        Effect.sync(() => {
          const ms = performance.now() - t
          if (ms > slowest.ms) Object.assign(slowest, { ms, q: q.slice(0, 40) })
        })
      )
    })
  return relayStack(settings, {
    wrap: (db) => ({
      ...db,
      write: (q, p, s) => timed(q, db.write(q, p, s as never)),
      read: (q, p, s) => timed(q, db.read(q, p, s as never))
    } as GraphDatabase["Type"])
  })
}

const run = <A, E>(label: string, program: Effect.Effect<A, E, GraphDatabase | never>) => {
  const slowest = { ms: 0, q: "" }
  const graph = `bench_import_${label}_${randomBytes(4).toString("hex")}`
  return Effect.gen(function*() {
    const started = performance.now()
    const out = yield* program
    const seconds = (performance.now() - started) / 1000
    const db = yield* GraphDatabase
    // Under load check-db's own statements can pass the timeout: then the bench says so instead of failing.
    const verified = label === "import" ? yield* Effect.either(verifyStored(db)) : null
    yield* Effect.ignore(db.dropGraph)
    return { seconds, slowest, out, verified }
  }).pipe(Effect.provide(stackOn(graph, slowest) as never)) as Effect.Effect<
    {
      seconds: number
      slowest: { ms: number; q: string }
      out: A
      verified: Awaited<ReturnType<typeof verifyStored>> extends never ? never : unknown
    },
    E
  >
}

const file = memoryFile({ threads: Math.ceil(n / 50), perThread: 50 })
const roots = Math.max(1, Math.floor(file.facts / 100))
const items = Array.from({ length: file.facts }, (_, i) => ({
  content: `Bulk fact ${i}: the service on topic ${i % roots} answers within ${i % 97} ms`,
  written_by: `loader-${i % 4}`,
  session_id: "bulk-bench",
  ...(i < roots ? { request_id: `root-${i}` } : { parent_request_id: `root-${i % roots}` })
}))

const program = Effect.gen(function*() {
  console.error(
    `memory: ${file.facts} facts, ${file.forks} forks, ${file.decisions} decisions, ${file.retractions} retractions, ${file.merges} merges`
  )
  const bulk = yield* run("bulk", bulkSave(items) as never)
  const text = memoryText(file)
  const imported = yield* run("import", importText(text, { merge: false }) as never)
  const rows = [
    ["path", "facts", "seconds", "facts/s", "slowest statement (ms, wall)"],
    [
      "bulk",
      String(file.facts),
      bulk.seconds.toFixed(1),
      String(Math.round(file.facts / bulk.seconds)),
      `${bulk.slowest.ms.toFixed(0)} ${bulk.slowest.q}`
    ],
    [
      "import",
      String(file.facts),
      imported.seconds.toFixed(1),
      String(Math.round(file.facts / imported.seconds)),
      `${imported.slowest.ms.toFixed(0)} ${imported.slowest.q}`
    ]
  ]
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(i === 4 ? 0 : 10)).join(" "))
  console.log(`import verify: ${JSON.stringify(imported.verified, (k, v) => (k.endsWith("xamples") ? undefined : v))}`)
})

Effect.runPromise(program).catch((e) => {
  console.error(e)
  process.exit(1)
})
