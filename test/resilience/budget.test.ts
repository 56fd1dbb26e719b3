import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, Ref, TestClock } from "effect"
import { DatabaseError } from "../../src/domain/errors.js"
import { withCallBudget } from "../../src/policies/timeout.js"

/** A call that never ends by itself, and says whether it was interrupted. */
const hanging = Effect.map(Ref.make(false), (stopped) => ({
  stopped,
  call: Effect.onInterrupt(Effect.never, () => Ref.set(stopped, true))
}))

const isRunning = <A, E>(fiber: Fiber.Fiber<A, E>) => Effect.map(Fiber.poll(fiber), Option.isNone)

/**
 * The call budget on a TestClock (Effect.timeoutFail in src/policies/timeout.ts). The real-time proofs (a hung server, a paused one) are in
 * test/hostile/timeouts-server.slow.test.ts and test/resilience/outage.slow.test.ts.
 */
describe("the call budget", () => {
  it.effect("a call still running at 2.5 s is stopped then, answered as a timeout, not a moment before", () =>
    Effect.gen(function*() {
      const { call, stopped } = yield* hanging
      const fiber = yield* Effect.fork(withCallBudget(call))
      yield* TestClock.adjust("2499 millis")
      expect(yield* isRunning(fiber)).toBe(true)
      yield* TestClock.adjust("1 millis")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toBeInstanceOf(DatabaseError)
      expect(error).toMatchObject({ reason: "timeout", detail: "tool call timed out (over its time budget)" })
      expect(yield* Ref.get(stopped)).toBe(true)
    }))

  it.effect("each call has its own 2.5 s: a later one outlives an earlier one, also after a quiet spell", () =>
    Effect.gen(function*() {
      const first = yield* hanging
      const early = yield* Effect.fork(withCallBudget(first.call))
      yield* TestClock.adjust("1 second")
      const second = yield* hanging
      const late = yield* Effect.fork(withCallBudget(second.call))
      yield* TestClock.adjust("1500 millis")
      expect(Exit.isFailure(yield* Fiber.await(early))).toBe(true)
      expect(yield* isRunning(late)).toBe(true)
      yield* TestClock.adjust("999 millis")
      expect(yield* isRunning(late)).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect(yield* Effect.flip(Fiber.join(late))).toMatchObject({ reason: "timeout" })

      // Nothing to watch for a minute, then a new call: still stopped on time.
      yield* TestClock.adjust("1 minute")
      const third = yield* hanging
      const again = yield* Effect.fork(withCallBudget(third.call))
      yield* TestClock.adjust("2499 millis")
      expect(yield* isRunning(again)).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect(yield* Effect.flip(Fiber.join(again))).toMatchObject({ reason: "timeout" })
    }))

  it.effect("a call that ends in time keeps its own result or failure", () =>
    Effect.gen(function*() {
      expect(yield* withCallBudget(Effect.succeed(42))).toBe(42)
      const refused = new DatabaseError({ reason: "refused", detail: "errMsg: Invalid input" })
      expect(yield* Effect.flip(withCallBudget(Effect.fail(refused)))).toBe(refused)
      // Only the budget's own cut is a timeout.
      expect(Exit.isInterrupted(yield* Effect.exit(withCallBudget(Effect.interrupt)))).toBe(true)
      const slow = yield* Effect.fork(withCallBudget(Effect.as(Effect.sleep("2 seconds"), "done")))
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.join(slow)).toBe("done")
    }))

  it.effect("interrupting a call from outside stops the work inside it and waits for it to stop", () =>
    Effect.gen(function*() {
      // The work takes a second of its own to stop (a connection being closed, say).
      const stopped = yield* Ref.make(false)
      const seenAfter = yield* Ref.make<boolean | null>(null)
      const slowToStop = Effect.onInterrupt(
        Effect.never,
        () => Effect.zipRight(Effect.sleep("1 second"), Ref.set(stopped, true))
      )
      // What the caller does next (its own finalizer) comes after the work has stopped.
      const caller = Effect.ensuring(
        withCallBudget(slowToStop),
        Effect.flatMap(Ref.get(stopped), (s) => Ref.set(seenAfter, s))
      )
      const fiber = yield* Effect.fork(caller)
      yield* TestClock.adjust("1 second")
      const interrupting = yield* Effect.fork(Fiber.interrupt(fiber))
      yield* TestClock.adjust("999 millis")
      expect(yield* isRunning(interrupting)).toBe(true)
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(interrupting)
      expect(yield* Ref.get(seenAfter)).toBe(true)
    }))
})
