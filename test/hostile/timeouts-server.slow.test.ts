import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Exit, Layer, Option, Redacted, Schedule, Schema } from "effect"
import { FalkorDB } from "falkordb"
import { inject } from "vitest"
import type { DatabaseError } from "../../src/domain/errors.js"
import { graphStack } from "../../src/layers/assembly/stacks.js"
import { ensureEmbeddedServer } from "../../src/layers/embedded/EmbeddedServer.js"
import { applyPolicies } from "../../src/policies/applyPolicies.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { makeRateLimiter, RateLimiter } from "../../src/services/RateLimiter.js"
import { Settings } from "../../src/services/Settings.js"
import { inDataDir, tempDataDir } from "../embedded/helpers.js"
import { disposeServer } from "../resilience/privateDatabase.js"
import { startServer } from "../support/falkordbServer.js"
import { liveLayerOn, testGraphName } from "../support/testLayer.js"

const Count = Schema.Struct({ n: Schema.Number })

/**
 * Issue 9, item 2: a query the call's 2.5 s budget gives up on must not run on in FalkorDB. Each
 * query runs here the way a tool call runs it (applyPolicies: rate limit, retry, budget), and is
 * far too slow to finish (a cartesian product of 400 million rows: some 40 s unbounded), so only the
 * server's TIMEOUT can stop it in time.
 */
const slowRead = "UNWIND range(1, 20000) AS a UNWIND range(1, 20000) AS b RETURN count(*) AS n"
const slowWrite = "UNWIND range(1, 20000) AS i CREATE (:Probe {i: i}) WITH count(*) AS made " +
  "UNWIND range(1, 20000) AS a UNWIND range(1, 20000) AS b RETURN made, count(*) AS n"

type Send = (command: ReadonlyArray<string>) => Promise<unknown>

/** A connection of its own to look at the server: a query blocks the connection it was sent on. */
const withMonitor = <A>(connect: () => Promise<FalkorDB>, use: (send: Send) => Promise<A>) =>
  Effect.promise(async () => {
    const db = await connect()
    try {
      const client = await db.connection
      return await use((command) => client.sendCommand([...command]))
    } finally {
      await db.close()
    }
  })

/** The queries FalkorDB is running (or has queued) on `graph` right now. */
const busyOn = (connect: () => Promise<FalkorDB>, graph: string) =>
  withMonitor(connect, async (send) => {
    const reply = (await send(["GRAPH.INFO", "RunningQueries", "WaitingQueries"])) as ReadonlyArray<unknown>
    const entries = reply.filter(Array.isArray).flat() as ReadonlyArray<ReadonlyArray<unknown>>
    return entries.filter((e) => e[e.indexOf("Graph name") + 1] === graph).length
  })

/**
 * Whether the server is done with the graph within 3 s of the answer: the reply of a stopped query
 * is sent a moment before the server forgets it, and on a loaded machine the call's budget may
 * answer a little before the server's TIMEOUT does (a query left running would be there for ~40 s).
 */
const idleOn = (connect: () => Promise<FalkorDB>, graph: string) =>
  busyOn(connect, graph).pipe(
    Effect.flatMap((n) => n === 0 ? Effect.succeed(true) : Effect.fail(n)),
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(60)))),
    Effect.orElseSucceed(() => false)
  )

/** Stopped by the server's TIMEOUT, or (on a loaded machine, just before it) by the call's budget. */
const stopped = /Query timed out|over its time budget/

/** Runs `query` as a tool call would and returns how it failed and how long it took. */
const asToolCall = (query: Effect.Effect<unknown, DatabaseError>) =>
  Effect.gen(function*() {
    const started = performance.now()
    const exit = yield* Effect.exit(applyPolicies(query))
    const millis = performance.now() - started
    expect(Exit.isFailure(exit)).toBe(true)
    // A failure, not a defect: the client sees `unavailable`, not `internal`.
    const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
    expect(Option.isSome(error)).toBe(true)
    return { error: Option.getOrThrow(error) as DatabaseError, millis }
  })

describe("server-side query timeouts", () => {
  it.live("a slow read is stopped by FalkorDB itself, answers unavailable, and leaves the server idle", () => {
    const target = inject("falkordb")
    const graph = testGraphName("timeouts")
    const connect = () =>
      FalkorDB.connect({ socket: { host: target.host, port: target.port }, password: target.password })
    return Effect.gen(function*() {
      const db = yield* GraphDatabase
      // Connected first, so the slow query starts at the beginning of the call's budget.
      expect(yield* db.read("RETURN 1 AS n", {}, Count)).toEqual([{ n: 1 }])
      const { error } = yield* asToolCall(db.read(slowRead))
      expect(error._tag).toBe("DatabaseError")
      expect(error.detail).toMatch(stopped)
      // The server stopped it: nothing runs on after the call (without a TIMEOUT it would for ~40 s).
      expect(yield* idleOn(connect, graph)).toBe(true)
      // And the connection still serves.
      expect(yield* db.read("RETURN 1 AS n", {}, Count)).toEqual([{ n: 1 }])
    }).pipe(Effect.provide(liveLayerOn(target, graph)))
  })

  it.live("a server whose TIMEOUT_MAX is lower: queries get its cap (not a refusal), and a stopped query is not retried", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => startServer()),
        (s) => Effect.promise(() => disposeServer(s))
      )
      const connect = () =>
        FalkorDB.connect({ socket: { host: server.host, port: server.port }, password: server.password })
      yield* withMonitor(connect, (send) => send(["GRAPH.CONFIG", "SET", "TIMEOUT_MAX", "500"]))
      const graph = testGraphName("timeout_max")
      yield* Effect.gen(function*() {
        const db = yield* GraphDatabase
        expect(yield* db.read("RETURN 1 AS n", {}, Count)).toEqual([{ n: 1 }])
        // Stopped at 500 ms by the server and not tried again (a retry would run on past the budget).
        const { error, millis } = yield* asToolCall(db.read(slowRead))
        expect(error.detail).toMatch(/Query timed out/)
        expect(error.transient).toBe(false)
        expect(millis).toBeLessThan(2000)
        expect(yield* idleOn(connect, graph)).toBe(true)
      }).pipe(Effect.provide(liveLayerOn(server, graph)))
    }).pipe(Effect.scoped))

  it.live("on the embedded server a slow write is stopped too, and rolled back: nothing of it landed", () =>
    Effect.gen(function*() {
      const dir = yield* tempDataDir()
      const graph = "relay_timeouts"
      const settings = Layer.succeed(Settings, { database: { _tag: "Embedded" }, graph, rateLimitPerMinute: 100_000 })
        .pipe(
          Layer.provideMerge(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["RELAY_DATA_DIR", dir]]))))
        )
      const live = Layer.mergeAll(
        graphStack(settings),
        Layer.effect(RateLimiter, makeRateLimiter(100_000))
      )
      yield* Effect.gen(function*() {
        const db = yield* GraphDatabase
        const { password, socketPath } = yield* ensureEmbeddedServer.pipe(inDataDir(dir))
        const connect = () => FalkorDB.connect({ socket: { path: socketPath }, password: Redacted.value(password) })
        // Set at run time (not in the config file), so an AOF replay at the next start is never cut.
        const setting = yield* withMonitor(connect, (send) => send(["GRAPH.CONFIG", "GET", "TIMEOUT_DEFAULT"]))
        expect(setting).toEqual(["TIMEOUT_DEFAULT", 2000])
        // And its append-only file gets every write as its query, never as effects (serverConfig.ts).
        const effects = yield* withMonitor(connect, (send) => send(["GRAPH.CONFIG", "GET", "EFFECTS_THRESHOLD"]))
        expect(effects).toEqual(["EFFECTS_THRESHOLD", 1_000_000_000])

        expect(yield* db.read("RETURN 1 AS n", {}, Count)).toEqual([{ n: 1 }])
        const { error } = yield* asToolCall(db.write(slowWrite))
        expect(error.detail).toMatch(stopped)
        expect(yield* idleOn(connect, graph)).toBe(true)
        // The 20,000 nodes it created before the timeout were undone.
        expect(yield* db.read("MATCH (p:Probe) RETURN count(p) AS n", {}, Count)).toEqual([{ n: 0 }])
      }).pipe(Effect.provide(live))
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)))
})
