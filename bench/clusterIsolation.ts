/**
 * `npm run bench:cluster-isolation [-- rounds saves]` (default 5 rounds of 60 saves): issue 45, point
 * 4. On `npm run cluster`'s cluster (FALKORDB_CLUSTER_NODES and FALKORDB_PASSWORD when set, else one
 * started here with scripts/cluster.mjs and stopped after), one graph holds a parent with 6,000
 * children saying the same thing (bench/duplicateIsolation.ts's hostile load) and a client loops on
 * its open conflicts. Two other workspaces save one at a time, alternately, so both see the same
 * moment: one on the attacked shard, one on another shard. Each round is a quiet pass then a loaded
 * pass in this process; the ratio is loaded p50 / quiet p50 per workspace. Then the capacity: saves a
 * second with 8 concurrent writers on one shard's workspaces, and on all three shards at once.
 */
import { type Context, Duration, Effect, Fiber, Layer, Logger, LogLevel, Redacted } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { relayStack } from "../src/layers/assembly/stacks.js"
import { FactStore } from "../src/services/FactStore.js"
import { GraphDatabase } from "../src/services/GraphDatabase.js"
import type { Address } from "../src/services/Settings.js"
import { Settings } from "../src/services/Settings.js"
import { importDuplicateFlood } from "./duplicateFlood.js"

const rounds = Number(process.argv[2] ?? 5)
const saves = Number(process.argv[3] ?? 60)
/** Writers at once in the capacity passes, and how long each pass runs. */
const writers = 8
const capacityMillis = 10_000

interface Shard {
  readonly from: number
  readonly to: number
  readonly port: number
}
interface ClusterModule {
  readonly startCluster: (o: object) => Promise<{
    readonly env: Record<string, string>
    readonly stop: () => Promise<unknown>
  }>
  readonly ask: (port: number, password: string, command: Array<string>) => Promise<unknown>
}
const { ask, startCluster } = await import(new URL("../scripts/cluster.mjs", import.meta.url).href) as ClusterModule

const started = process.env["FALKORDB_CLUSTER_NODES"] === undefined ? await startCluster({}) : undefined
const env = started?.env ?? process.env
const nodes: ReadonlyArray<Address> = (env["FALKORDB_CLUSTER_NODES"] ?? "").split(",").map((n) => {
  const [host, port] = n.trim().split(":")
  return { host: host!, port: Number(port) }
})
const password = env["FALKORDB_PASSWORD"] ?? ""

const shards = async (): Promise<ReadonlyArray<Shard>> => {
  for (const node of nodes) {
    const reply = await ask(node.port, password, ["CLUSTER", "SLOTS"])
    if (Array.isArray(reply)) {
      return (reply as Array<[number, number, [string, number]]>).map(([from, to, primary]) => ({
        from,
        to,
        port: Number(primary[1])
      }))
    }
  }
  throw new Error("no node of the cluster answered")
}
const shardOf = async (key: string, all: ReadonlyArray<Shard>) => {
  const slot = Number(await ask(nodes[0]!.port, password, ["CLUSTER", "KEYSLOT", key]))
  return all.find((s) => slot >= s.from && slot <= s.to)!.port
}
/** A graph name with this prefix that hashes to `port`'s shard. */
const graphOn = async (prefix: string, port: number, all: ReadonlyArray<Shard>) => {
  for (let i = 0;; i++) {
    const name = `${prefix}_${i}`
    if (await shardOf(name, all) === port) return name
  }
}

const stackOn = (graph: string) =>
  relayStack(Layer.succeed(Settings, {
    database: { _tag: "Cluster", nodes, password: Redacted.make(password) },
    graph,
    rateLimitPerMinute: 1_000_000
  }))

const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0
}

const saveOne = (i: number, by: string) =>
  Effect.flatMap(
    FactStore,
    (store) =>
      store.save({ id: randomUUID(), content: `${by} save ${i}`, writtenBy: by, sessionId: "b", parentId: null })
  )

/** One workspace's built stack (its own pool, as duplicateIsolation.ts builds them). */
type Stack = Context.Context<Layer.Layer.Success<ReturnType<typeof stackOn>>>

/** `saves` saves, alternately in `a` and `b`, each timed. */
const pairedSaves = (a: Stack, b: Stack) =>
  Effect.gen(function*() {
    const ms = { a: [] as Array<number>, b: [] as Array<number> }
    for (let i = 0; i < saves; i++) {
      for (const [key, stack] of [["a", a], ["b", b]] as const) {
        const t = performance.now()
        yield* saveOne(i, key).pipe(Effect.provide(stack))
        ms[key].push(performance.now() - t)
      }
    }
    return ms
  })

const conflictsLoop = (stats: { calls: number }) =>
  Effect.flatMap(FactStore, (store) =>
    Effect.forever(
      store.openConflicts({ limit: 10, after: null, asOf: null }).pipe(
        Effect.tap(() => Effect.sync(() => stats.calls++))
      )
    ))

/** Saves a second by `writers` writers over `stacks` (round-robin), for `capacityMillis`. */
const throughput = (stacks: ReadonlyArray<Stack>) =>
  Effect.gen(function*() {
    const end = performance.now() + capacityMillis
    let done = 0
    let failed = 0
    yield* Effect.forEach(
      Array.from({ length: writers }, (_, w) => w),
      (w) =>
        Effect.gen(function*() {
          for (let i = 0; performance.now() < end; i++) {
            const ok = yield* saveOne(i, `writer${w}`).pipe(
              Effect.provide(stacks[w % stacks.length]!),
              Effect.isSuccess
            )
            if (ok) done++
            else failed++
          }
        }),
      { concurrency: "unbounded", discard: true }
    )
    return { perSecond: done / (capacityMillis / 1000), failed }
  })

const program = Effect.gen(function*() {
  const all = yield* Effect.promise(shards)
  const [attacked, other, third] = [all[0]!.port, all[1]!.port, all[2]!.port]
  const run = randomBytes(3).toString("hex")
  const names = {
    flood: yield* Effect.promise(() => graphOn(`bench_dups_${run}`, attacked, all)),
    same: yield* Effect.promise(() => graphOn(`bench_same_${run}`, attacked, all)),
    other: yield* Effect.promise(() => graphOn(`bench_other_${run}`, other, all)),
    third: yield* Effect.promise(() => graphOn(`bench_third_${run}`, third, all)),
    same2: yield* Effect.promise(() => graphOn(`bench_same2_${run}`, attacked, all))
  }
  const stacks: Record<keyof typeof names, Stack> = {} as never
  for (const [key, graph] of Object.entries(names)) {
    stacks[key as keyof typeof names] = yield* Layer.build(stackOn(graph))
  }
  yield* importDuplicateFlood.pipe(Effect.provide(stacks.flood))
  // Warm every graph's schema, plans and connections.
  yield* pairedSaves(stacks.same, stacks.other)

  const rows: Array<Array<string>> = [[
    "round",
    "same quiet",
    "same loaded",
    "same ratio",
    "other quiet",
    "other loaded",
    "other ratio",
    "other p99 q/l",
    "conflicts/s"
  ]]
  const ratios = { same: [] as Array<number>, other: [] as Array<number> }
  for (let r = 1; r <= rounds; r++) {
    const quiet = yield* pairedSaves(stacks.same, stacks.other)
    const stats = { calls: 0 }
    const loop = yield* Effect.fork(conflictsLoop(stats).pipe(Effect.provide(stacks.flood)))
    // The loop at its steady state before the saves are timed.
    yield* Effect.sleep(Duration.millis(500))
    const loopStart = performance.now()
    const callsAtStart = stats.calls
    const loaded = yield* pairedSaves(stacks.same, stacks.other)
    const loopRate = (stats.calls - callsAtStart) / ((performance.now() - loopStart) / 1000)
    yield* Fiber.interrupt(loop)
    const same = quantile(loaded.a, 0.5) / quantile(quiet.a, 0.5)
    const otherRatio = quantile(loaded.b, 0.5) / quantile(quiet.b, 0.5)
    ratios.same.push(same)
    ratios.other.push(otherRatio)
    rows.push([
      String(r),
      quantile(quiet.a, 0.5).toFixed(1),
      quantile(loaded.a, 0.5).toFixed(1),
      `x${same.toFixed(2)}`,
      quantile(quiet.b, 0.5).toFixed(1),
      quantile(loaded.b, 0.5).toFixed(1),
      `x${otherRatio.toFixed(2)}`,
      `${quantile(quiet.b, 0.99).toFixed(0)}/${quantile(loaded.b, 0.99).toFixed(0)}`,
      loopRate.toFixed(1)
    ])
  }
  const out = (line: string) => process.stdout.write(`${line}\n`)
  out(
    `save p50 (ms, ${saves} a pass, alternating) of a workspace on the attacked shard (same) and on another ` +
      `shard (other), quiet then while one client loops on 6,000 duplicates' conflicts on the attacked shard`
  )
  for (const row of rows) out(row.map((c) => c.padEnd(13)).join(" "))
  const sameMedian = quantile(ratios.same, 0.5)
  const otherMedian = quantile(ratios.other, 0.5)
  out(
    `median ratio of p50s: same shard x${sameMedian.toFixed(2)}, other shard x${otherMedian.toFixed(2)}; ` +
      `other-shard slowdown ${((otherMedian - 1) / Math.max(sameMedian - 1, 1e-9) * 100).toFixed(0)}% of the ` +
      `same-shard one (issue 45 asks other ratio <= half the same ratio: ${
        otherMedian <= sameMedian / 2 ? "yes" : "no"
      })`
  )

  const one = yield* throughput([stacks.same, stacks.same2])
  const three = yield* throughput([stacks.same, stacks.other, stacks.third])
  out(
    `capacity (${writers} concurrent writers, ${capacityMillis / 1000} s each): one shard ${
      one.perSecond.toFixed(0)
    } saves/s (${one.failed} failed); three shards at once ${
      three.perSecond.toFixed(0)
    } saves/s (${three.failed} failed)`
  )
  for (const stack of Object.values(stacks)) {
    yield* Effect.ignore(Effect.flatMap(GraphDatabase, (db) => db.dropGraph).pipe(Effect.provide(stack)))
  }
  // The slow-statement warnings of a loaded machine would bury the table.
}).pipe(Effect.scoped, Logger.withMinimumLogLevel(LogLevel.Error))

await Effect.runPromise(program).then(
  () => started?.stop(),
  async (e: unknown) => {
    await started?.stop()
    process.stderr.write(`${String(e)}\n`)
    process.exit(1)
  }
)
process.exit(0)
