/**
 * `node --import tsx bench/workspaceIsolation.ts`: a slow statement in one workspace's graph must not
 * stall another's. One process's pool of connections serves both graphs (as in team mode); while a
 * ~1 s read runs on graph A, graph B answers small reads. Run once with the pool of one connection
 * (every statement queues behind the slow one) and once with the default pool.
 */
import { ConfigProvider, Context, Effect, Fiber, Layer, Redacted } from "effect"
import { graphStack } from "../src/layers/assembly/stacks.js"
import { Database } from "../src/services/GraphDatabase.js"
import { Settings } from "../src/services/Settings.js"
import { openDatabase } from "./db.js"

const db = await openDatabase()
const settings = Layer.succeed(Settings, {
  database: {
    _tag: "HostPort",
    host: db.host,
    port: db.port,
    password: db.password === undefined ? null : Redacted.make(db.password)
  },
  graph: "bench_isolation_unused",
  rateLimitPerMinute: 1_000_000
})

const slow = "UNWIND range(1, 4000000) AS x WITH x WHERE x % 7 = 0 RETURN count(x) AS n"
const quantile = (xs: ReadonlyArray<number>, q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!

const run = (connections: number) =>
  Effect.gen(function*() {
    const database = Context.get(
      yield* Layer.build(
        graphStack(settings).pipe(
          Layer.provide(
            Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["RELAY_DB_CONNECTIONS", String(connections)]])))
          )
        )
      ),
      Database
    )
    const a = database.graph("bench_isolation_a")
    const b = database.graph("bench_isolation_b")
    yield* Effect.all([a.write("CREATE (:Fact {id: 'a'})"), b.write("CREATE (:Fact {id: 'b'})")])
    const quick = Effect.gen(function*() {
      const started = performance.now()
      yield* b.read("MATCH (f:Fact {id: 'b'}) RETURN f.id AS id")
      return performance.now() - started
    })
    const idle = yield* Effect.forEach(Array.from({ length: 20 }), () => quick)
    const slowStarted = performance.now()
    const slowFiber = yield* Effect.fork(a.read(slow))
    yield* Effect.sleep("50 millis")
    const during = yield* Effect.forEach(Array.from({ length: 20 }), () => quick)
    yield* Fiber.join(slowFiber)
    const slowMillis = performance.now() - slowStarted
    yield* Effect.all([a.dropGraph, b.dropGraph])
    const f = (x: number) => x.toFixed(2)
    console.log(
      `pool of ${connections}: graph B read p50 ${f(quantile(idle, 0.5))} ms idle, ` +
        `p50 ${f(quantile(during, 0.5))} / max ${f(Math.max(...during))} ms while graph A runs a ${
          f(slowMillis)
        } ms statement`
    )
  }).pipe(Effect.scoped)

await Effect.runPromise(Effect.zipRight(run(1), run(8)))
await db.stop()
