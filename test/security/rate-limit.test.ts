import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, TestClock } from "effect"
import { makeRateLimiter } from "../../src/services/RateLimiter.js"
import { connectRelay } from "../support/mcpClient.js"
import { errorOf } from "../support/toolOutputs.js"

/** Takes `n` tokens one after another and says how many were granted. */
const takeMany = (take: Effect.Effect<void, unknown>, n: number) =>
  Effect.map(
    Effect.forEach(Array.from({ length: n }), () => Effect.either(take)),
    (rs) => rs.filter(Either.isRight).length
  )

describe("rate limiter on a TestClock", () => {
  it.effect("lets a burst of the limit through and refuses the next with a retry-after", () =>
    Effect.gen(function*() {
      const { take } = yield* makeRateLimiter(60)
      expect(yield* takeMany(take, 60)).toBe(60)
      const refused = yield* Effect.flip(take)
      expect(refused._tag).toBe("RateLimited")
      expect(refused.code).toBe("rate_limited")
      expect(refused.retryAfterMillis).toBe(1000)
      expect(refused.message).toBe("more than 60 calls a minute; retry after 1 s (1000 ms)")
    }))

  it.effect("refills one call per 60000/limit ms, exactly at the boundary", () =>
    Effect.gen(function*() {
      const { take } = yield* makeRateLimiter(60)
      expect(yield* takeMany(take, 61)).toBe(60)
      yield* TestClock.adjust("999 millis")
      const early = yield* Effect.flip(take)
      expect(early.retryAfterMillis).toBe(1)
      expect(early.message).toContain("retry after 1 s")
      yield* TestClock.adjust("1 millis")
      yield* take
      expect(Either.isLeft(yield* Effect.either(take))).toBe(true)
      yield* TestClock.adjust("1 seconds")
      yield* take
    }))

  it.effect("is exact for limits that do not divide a minute evenly", () =>
    Effect.gen(function*() {
      // 7 a minute: one call every 8571.43 ms.
      const { take } = yield* makeRateLimiter(7)
      expect(yield* takeMany(take, 8)).toBe(7)
      yield* TestClock.adjust("8571 millis")
      expect((yield* Effect.flip(take)).retryAfterMillis).toBe(1)
      yield* TestClock.adjust("1 millis")
      yield* take
      // 20 a minute: a token every 3000 ms, not 3001 (floating point would say 0.9999... tokens).
      const twenty = yield* makeRateLimiter(20)
      expect(yield* takeMany(twenty.take, 21)).toBe(20)
      yield* TestClock.adjust("2999 millis")
      expect(Either.isLeft(yield* Effect.either(twenty.take))).toBe(true)
      yield* TestClock.adjust("1 millis")
      yield* twenty.take
    }))

  it.effect("refills over time but never holds more than one minute's worth", () =>
    Effect.gen(function*() {
      const { take } = yield* makeRateLimiter(60)
      expect(yield* takeMany(take, 60)).toBe(60)
      yield* TestClock.adjust("30 seconds")
      expect(yield* takeMany(take, 40)).toBe(30)
      yield* TestClock.adjust("1 hours")
      expect(yield* takeMany(take, 100)).toBe(60)
      const refused = yield* Effect.flip(take)
      expect(refused.retryAfterMillis).toBe(1000)
    }))

  it.effect("refused calls cost nothing", () =>
    Effect.gen(function*() {
      const { take } = yield* makeRateLimiter(2)
      expect(yield* takeMany(take, 2)).toBe(2)
      // Hammering while empty does not push the next grant further away.
      expect(yield* takeMany(take, 50)).toBe(0)
      yield* TestClock.adjust("30 seconds")
      yield* take
      expect((yield* Effect.flip(take)).message).toBe("more than 2 calls a minute; retry after 30 s (30000 ms)")
    }))
})

describe("rate limit through the MCP client", () => {
  it("25 calls against RELAY_RATE_LIMIT=20 give 20 answers and 5 rate_limited", async () => {
    const relay = await connectRelay({ env: { RELAY_RATE_LIMIT: "20" } })
    try {
      // All at once, so the 3 s it takes to refill one call at 20 a minute cannot elapse in between.
      const results = await Promise.all(
        Array.from({ length: 25 }, () => relay.call("relay_get_current_state", { limit: 1 }))
      )
      const answered = results.filter((r) => r.isError !== true)
      const limited = results.filter((r) => r.isError === true && errorOf(r).code === "rate_limited")
      expect(answered).toHaveLength(20)
      expect(limited).toHaveLength(5)
      for (const r of limited) {
        expect(r.isError).toBe(true)
        expect(r.content[0]?.text).toMatch(
          /^rate_limited: more than 20 calls a minute; retry after [1-3] s \(\d+ ms\)$/
        )
      }
    } finally {
      await relay.close()
    }
  })
})
