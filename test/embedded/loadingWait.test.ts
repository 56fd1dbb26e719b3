import { expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Ref, TestClock } from "effect"
import { NotYet, pollWhileLoading, START_TIMEOUT } from "../../src/layers/embedded/waiting.js"

/**
 * Issue 40, recovery: a server restarted on a large memory answers LOADING for longer than a start
 * waits (a 1M-fact memory took past 10 s), and Relay gave up on a server that was making progress.
 * Now a start that outlasts START_TIMEOUT goes on waiting while the server says it is loading, up to
 * LOAD_WAIT, and still gives up at once on a server that is merely not answering.
 */
/** A server ready at 45 s, waited for as a start waits: the outcome at 60 s, and how often "still loading" was said. */
const waitedFor = (loading: boolean) =>
  Effect.gen(function*() {
    const said = yield* Ref.make(0)
    const attempt = Effect.flatMap(TestClock.currentTimeMillis, (now) =>
      now >= Duration.toMillis(Duration.seconds(45)) ? Effect.succeed("ready" as const) : Effect.fail(new NotYet()))
    const fiber = yield* Effect.fork(
      pollWhileLoading(
        attempt,
        START_TIMEOUT,
        Effect.succeed(loading),
        Ref.update(said, (n) =>
          n + 1),
        () =>
          Effect.succeed("gave up" as const)
      )
    )
    yield* TestClock.adjust(Duration.seconds(60))
    return { outcome: yield* Fiber.join(fiber), said: yield* Ref.get(said) }
  })

it.effect("a loading server is waited for past the start's limit, up to the load's", () =>
  Effect.gen(function*() {
    expect(yield* waitedFor(true)).toEqual({ outcome: "ready", said: 1 })
  }))

it.effect("a server that is not loading is given up on at the start's limit", () =>
  Effect.gen(function*() {
    expect(yield* waitedFor(false)).toEqual({ outcome: "gave up", said: 0 })
  }))
