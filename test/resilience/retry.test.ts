import { describe, expect, it, layer } from "@effect/vitest"
import { Cause, Chunk, Clock, Effect, Exit, Fiber, Layer, Ref, Schema, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import {
  DatabaseError,
  FactNotFound,
  InvalidInput,
  InvalidResolution,
  RateLimited,
  SecretDetected,
  type ToolError
} from "../../src/domain/errors.js"
import { applyPolicies } from "../../src/policies/applyPolicies.js"
import { retryTransient } from "../../src/policies/retry.js"
import { FactStore } from "../../src/services/FactStore.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { makeRateLimiter, RateLimiter } from "../../src/services/RateLimiter.js"
import { ToolCall } from "../../src/services/ToolCall.js"
import { saveFact } from "../../src/tools/saveFact.js"
import { ok } from "../support/runTool.js"
import { privateDatabaseLayer, PrivateServer } from "./privateDatabase.js"

/** An effect that fails with `error` every time and counts how often it ran. */
const failing = (attempts: Ref.Ref<number>, error: ToolError) =>
  Effect.zipRight(Ref.update(attempts, (n) => n + 1), Effect.fail(error))

/**
 * Waits (in real time, for real I/O to finish) until the code under test has scheduled its retry
 * wait on the TestClock: the only sleep due within 500 ms (connect, query and call timeouts are longer).
 */
const untilRetryScheduled = Effect.gen(function*() {
  const now = yield* Clock.currentTimeMillis
  for (let i = 0; i < 1000; i++) {
    if (Chunk.some(yield* TestClock.sleeps(), (at) => at - now <= 500)) return
    yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
  }
  return yield* Effect.dieMessage("no retry was scheduled")
})

const transient = new DatabaseError({ reason: "unreachable", detail: "connection lost" })

describe("retry policy", () => {
  it.effect("tries a transient failure 3 times in all, backing off with jitter, under 2 s of waits", () =>
    Effect.gen(function*() {
      const totals: Array<number> = []
      for (let run = 0; run < 40; run++) {
        const times: Array<number> = []
        const attempt = Effect.flatMap(Clock.currentTimeMillis, (t) => {
          times.push(t)
          return Effect.fail(transient)
        })
        const fiber = yield* Effect.fork(retryTransient(attempt))
        yield* TestClock.adjust("2 seconds")
        const exit = yield* Fiber.await(fiber)
        expect(Exit.isFailure(exit)).toBe(true)
        expect(times).toHaveLength(3)
        const [t0, t1, t2] = times as [number, number, number]
        expect(t1 - t0).toBeGreaterThanOrEqual(50)
        expect(t2 - t1).toBeGreaterThan(t1 - t0)
        totals.push(t2 - t0)
      }
      expect(Math.max(...totals)).toBeLessThan(2000)
      // Jitter: not every run waits the same.
      expect(new Set(totals).size).toBeGreaterThan(1)
    }))

  const neverRetried: ReadonlyArray<ToolError> = [
    new InvalidInput({ message: "content: is required" }),
    new FactNotFound({ message: "fact_id: no fact" }),
    new SecretDetected({ message: "content looks like it contains a credential (JWT)" }),
    new RateLimited({ message: "retry after 1 s", retryAfterMillis: 1000 }),
    new InvalidResolution({ message: "cycle" }),
    new DatabaseError({ reason: "refused", detail: "errMsg: Invalid input" })
  ]

  it.effect("never retries validation, not-found, secret, rate, resolution or non-transient database errors", () =>
    Effect.gen(function*() {
      for (const error of neverRetried) {
        const attempts = yield* Ref.make(0)
        const fiber = yield* Effect.fork(retryTransient(failing(attempts, error)))
        yield* TestClock.adjust("10 seconds")
        expect(yield* Effect.flip(Fiber.join(fiber))).toBe(error)
        expect(yield* Ref.get(attempts), error._tag).toBe(1)
      }
    }))

  it.effect("the whole policy stack (limit, retry, budget) keeps to the same rules", () =>
    Effect.gen(function*() {
      for (const error of [...neverRetried, transient]) {
        const attempts = yield* Ref.make(0)
        const fiber = yield* Effect.fork(applyPolicies(failing(attempts, error)))
        yield* TestClock.adjust("10 seconds")
        expect((yield* Effect.flip(Fiber.join(fiber)))._tag).toBe(error._tag)
        expect(yield* Ref.get(attempts), error._tag).toBe(error === transient ? 3 : 1)
      }
      // A refused call never reaches the tool at all.
      const attempts = yield* Ref.make(0)
      const limited = Layer.effect(RateLimiter, makeRateLimiter(1))
      const twice = Effect.zipRight(
        Effect.either(applyPolicies(Ref.update(attempts, (n) => n + 1))),
        Effect.flip(applyPolicies(Ref.update(attempts, (n) => n + 1)))
      ).pipe(Effect.provide(limited))
      expect((yield* twice)._tag).toBe("RateLimited")
      expect(yield* Ref.get(attempts)).toBe(1)
    }).pipe(Effect.provide(Layer.effect(RateLimiter, makeRateLimiter(100_000)))))
})

const countFacts = (id: string) =>
  Effect.flatMap(GraphDatabase, (db) =>
    db.read(
      "MATCH (f:Fact {id: $id}) OPTIONAL MATCH (f)-[b:BUILDS_ON]->() RETURN count(DISTINCT f) AS n, count(b) AS up",
      { id },
      Schema.Struct({ n: Schema.Number, up: Schema.Number })
    )).pipe(Effect.map((rows) => rows[0]))

layer(privateDatabaseLayer)("retry against a FalkorDB stopped and started under the test", (it) => {
  it.effect("a call made while the server is down succeeds on its retry once the server is back", () =>
    Effect.gen(function*() {
      const server = yield* PrivateServer
      const store = yield* FactStore
      const saved = yield* ok("relay_save_fact", { content: "survives a restart", written_by: "a", session_id: "s" })
      yield* Effect.promise(() => server.kill())
      const attempts = yield* Ref.make(0)
      const call = Effect.zipRight(
        Ref.update(attempts, (n) => n + 1),
        store.currentState({ limit: 10, sessionId: null, before: null })
      )
      const fiber = yield* Effect.fork(retryTransient(call))
      yield* untilRetryScheduled
      expect(yield* Ref.get(attempts)).toBe(1)
      yield* Effect.promise(() => server.restart())
      yield* TestClock.adjust("1 seconds")
      const facts = yield* Fiber.join(fiber)
      expect(yield* Ref.get(attempts)).toBe(2)
      // persist: the server came back with its data (append-only file)
      expect(facts.items.map((f) => f.id)).toContain(saved.fact.id)
    }))

  it.effect("sorts driver failures: a dead server is transient, a query the server rejects is a defect (not retried)", () =>
    Effect.gen(function*() {
      const server = yield* PrivateServer
      const db = yield* GraphDatabase
      const bad = yield* Effect.exit(db.read("THIS IS NOT CYPHER"))
      expect(Exit.isFailure(bad) && Cause.isDie(bad.cause)).toBe(true)
      const attempts = yield* Ref.make(0)
      const badAgain = yield* Effect.exit(
        retryTransient(Effect.zipRight(Ref.update(attempts, (n) => n + 1), db.read("RETURN $$")))
      )
      expect(Exit.isFailure(badAgain) && Cause.isDie(badAgain.cause)).toBe(true)
      expect(yield* Ref.get(attempts)).toBe(1)

      yield* Effect.promise(() => server.kill())
      const down = yield* Effect.flip(db.read("RETURN 1"))
      expect(down.transient).toBe(true)
      expect(down.detail).toMatch(/ECONNREFUSED|closed|Socket/i)
      yield* Effect.promise(() => server.restart())
      expect(yield* db.read("RETURN 1 AS one", {}, Schema.Struct({ one: Schema.Number }))).toEqual([{ one: 1 }])
    }))

  it.effect("a save run twice with the same call id leaves one fact and answers the same fact", () =>
    Effect.gen(function*() {
      const root = yield* ok("relay_save_fact", { content: "root of retries", written_by: "a", session_id: "s" })
      const input = yield* Schema.decodeUnknown(saveFact.input)({
        content: "  written once, whatever happens  ",
        written_by: "b",
        session_id: "s",
        parent_fact_id: root.fact.id
      })
      const id = randomUUID()
      const save = saveFact.handler(input).pipe(Effect.provideService(ToolCall, { id }))
      const first = yield* save
      yield* TestClock.adjust("5 seconds")
      const second = yield* save
      expect(second).toEqual(first)
      expect(first.fact.id).toBe(id)
      expect(yield* countFacts(id)).toEqual({ n: 1, up: 1 })
    }))

  it.effect("a save whose first try landed but whose reply was lost is retried into the same fact", () =>
    Effect.gen(function*() {
      const input = yield* Schema.decodeUnknown(saveFact.input)({
        content: "landed on the first try",
        written_by: "a",
        session_id: "s"
      })
      const id = randomUUID()
      const tries = yield* Ref.make(0)
      // The write commits, then the connection drops before the reply: the caller sees a transient failure.
      const lostReply = saveFact.handler(input).pipe(
        Effect.provideService(ToolCall, { id }),
        Effect.tap(() => Ref.update(tries, (n) => n + 1)),
        Effect.flatMap((out) => Effect.map(Ref.get(tries), (n) => ({ n, out }))),
        Effect.flatMap(({ n, out }) => n === 1 ? Effect.fail(transient) : Effect.succeed(out))
      )
      const fiber = yield* Effect.fork(retryTransient(lostReply))
      yield* untilRetryScheduled
      const landed = yield* countFacts(id)
      expect(landed).toEqual({ n: 1, up: 0 })
      yield* TestClock.adjust("1 seconds")
      const answer = yield* Fiber.join(fiber)
      expect(yield* Ref.get(tries)).toBe(2)
      expect(answer.fact.id).toBe(id)
      expect(answer.fact.content).toBe("landed on the first try")
      expect(yield* countFacts(id)).toEqual({ n: 1, up: 0 })
    }))
})
