/**
 * `node --import tsx bench/duplicateIsolation.ts [rounds] [saves]` (default 3 rounds of 100 saves):
 * issue 40, finding 9. One parent with 6,000 children saying the same thing and one that differs, in
 * one graph; a client loops on its open conflicts with no rate limit (the store's own call, as the
 * tool runs it). Another graph's saves, one at a time, are timed in pairs of runs in this process:
 * quiet (no loop), then with the loop. Aim: the loaded p50 at most 2x the quiet one. On
 * FALKORDB_HOST/FALKORDB_PORT (default 127.0.0.1:6379), throwaway graphs.
 */
import { Duration, Effect, Fiber, Layer, Redacted } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { relayStack } from "../src/layers/assembly/stacks.js"
import { FactStore } from "../src/services/FactStore.js"
import { GraphDatabase } from "../src/services/GraphDatabase.js"
import { Settings } from "../src/services/Settings.js"
import { importDuplicateFlood } from "./duplicateFlood.js"

const rounds = Number(process.argv[2] ?? 3)
const saves = Number(process.argv[3] ?? 100)

const stackOn = (graph: string) =>
  relayStack(Layer.succeed(Settings, {
    database: {
      _tag: "HostPort",
      host: process.env["FALKORDB_HOST"] ?? "127.0.0.1",
      port: Number(process.env["FALKORDB_PORT"] ?? 6379),
      password: Redacted.make(process.env["FALKORDB_PASSWORD"] ?? "")
    },
    graph,
    rateLimitPerMinute: 1_000_000
  }))

const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0
}

const timedSaves = Effect.gen(function*() {
  const store = yield* FactStore
  const ms: Array<number> = []
  for (let i = 0; i < saves; i++) {
    const t = performance.now()
    yield* store.save({
      id: randomUUID(),
      content: `unrelated ${i}`,
      writtenBy: "other",
      sessionId: "o",
      parentId: null
    })
    ms.push(performance.now() - t)
  }
  return ms
})

const conflictsLoop = (stats: { calls: number; ms: Array<number> }) =>
  Effect.flatMap(FactStore, (store) =>
    Effect.forever(Effect.suspend(() => {
      const t = performance.now()
      return store.openConflicts({ limit: 10, after: null, asOf: null }).pipe(
        Effect.tap(() =>
          Effect.sync(() => {
            stats.calls++
            stats.ms.push(performance.now() - t)
          })
        )
      )
    })))

const program = Effect.gen(function*() {
  const flood = yield* Layer.build(stackOn(`bench_dups_${randomBytes(4).toString("hex")}`))
  const other = yield* Layer.build(stackOn(`bench_other_${randomBytes(4).toString("hex")}`))
  yield* importDuplicateFlood.pipe(Effect.provide(flood))
  // Warm both graphs' plans and connections.
  yield* timedSaves.pipe(Effect.provide(other))
  const rows: Array<Array<string>> = [[
    "round",
    "quiet p50",
    "quiet p99",
    "loaded p50",
    "loaded p99",
    "ratio p50",
    "conflicts calls",
    "conflicts p50"
  ]]
  const ratios: Array<number> = []
  for (let r = 1; r <= rounds; r++) {
    const quiet = yield* timedSaves.pipe(Effect.provide(other))
    const stats = { calls: 0, ms: [] as Array<number> }
    const loop = yield* Effect.fork(conflictsLoop(stats).pipe(Effect.provide(flood)))
    // Let the loop reach its steady state before the saves are timed.
    yield* Effect.sleep(Duration.millis(500))
    const loaded = yield* timedSaves.pipe(Effect.provide(other))
    yield* Fiber.interrupt(loop)
    const ratio = quantile(loaded, 0.5) / quantile(quiet, 0.5)
    ratios.push(ratio)
    rows.push([
      String(r),
      quantile(quiet, 0.5).toFixed(1),
      quantile(quiet, 0.99).toFixed(1),
      quantile(loaded, 0.5).toFixed(1),
      quantile(loaded, 0.99).toFixed(1),
      `x${ratio.toFixed(2)}`,
      String(stats.calls),
      quantile(stats.ms, 0.5).toFixed(0)
    ])
  }
  console.log(`another graph's saves (ms, ${saves} a run) while one client loops on 6,000 duplicates' conflicts`)
  for (const row of rows) console.log(row.map((c) => c.padEnd(12)).join(" "))
  console.log(`median ratio of p50s: x${quantile(ratios, 0.5).toFixed(2)} (aim: <= x2)`)
  for (const stack of [flood, other]) {
    yield* Effect.ignore(Effect.flatMap(GraphDatabase, (db) => db.dropGraph).pipe(Effect.provide(stack)))
  }
}).pipe(Effect.scoped)

Effect.runPromise(program).catch((e) => {
  console.error(e)
  process.exit(1)
})
