import { Clock, Effect, Ref } from "effect"
import { RateLimited } from "../domain/errors.js"
import { Settings } from "./Settings.js"

const minute = 60_000

/**
 * A token bucket: `perMinute` calls at once, refilled evenly over a minute, on Effect's Clock so a
 * TestClock drives it. The bucket starts full; a refused call costs nothing.
 *
 * The bucket is kept in integer "credit" so the boundary is exact for any limit: one call costs
 * 60 000 credit, every millisecond adds `perMinute` credit, and the bucket holds at most
 * `perMinute` calls. (Fractions of a token in floating point drift: at 20 a minute, 3000 ms of
 * refill is not quite one token.)
 */
const tokenBucket = Effect.fn("relay/rateLimiter/tokenBucket")(function*(perMinute: number) {
  const cost = minute
  const capacity = perMinute * cost
  const start = yield* Clock.currentTimeMillis
  const bucket = yield* Ref.make({ credit: capacity, at: start })
  const take = Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Ref.modify(bucket, ({ at, credit }) => {
      const available = Math.min(capacity, credit + Math.max(0, now - at) * perMinute)
      // A clock that went backwards keeps the later mark, so it cannot mint credit.
      const mark = Math.max(at, now)
      return available >= cost
        ? [0, { credit: available - cost, at: mark }] as const
        : [Math.ceil((cost - available) / perMinute), { credit: available, at: mark }] as const
    })).pipe(
      Effect.flatMap((waitMillis) =>
        waitMillis === 0 ? Effect.void : Effect.fail(
          new RateLimited({
            message: `more than ${perMinute} calls a minute; retry after ${Math.ceil(waitMillis / 1000)} s` +
              ` (${waitMillis} ms)`,
            retryAfterMillis: waitMillis
          })
        )
      )
    )
  return { take }
})

/** A per-process budget of tool calls: Settings' RELAY_RATE_LIMIT a minute. Depends on Settings. */
export class RateLimiter extends Effect.Service<RateLimiter>()("relay/RateLimiter", {
  effect: Effect.flatMap(Settings, (s) => tokenBucket(s.rateLimitPerMinute))
}) {}

/** A limiter of its own, outside any stack: one per token over HTTP, and in tests. */
export const makeRateLimiter = (perMinute: number): Effect.Effect<RateLimiter> =>
  Effect.map(tokenBucket(perMinute), (bucket) => new RateLimiter(bucket))
