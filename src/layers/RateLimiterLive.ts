import { Clock, Effect, Layer, Ref } from "effect"
import { RateLimited } from "../domain/errors.js"
import { RateLimiter } from "../services/RateLimiter.js"
import { Settings } from "../services/Settings.js"

const minute = 60_000

/**
 * A token bucket: `perMinute` calls at once, refilled evenly over a minute, on Effect's Clock so a
 * TestClock drives it. The bucket starts full.
 */
export const makeRateLimiter = (perMinute: number) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const bucket = yield* Ref.make({ tokens: perMinute, at: start })
    const perMilli = perMinute / minute
    const take = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Ref.modify(bucket, ({ at, tokens }) => {
        const available = Math.min(perMinute, tokens + Math.max(0, now - at) * perMilli)
        return available >= 1
          ? [0, { tokens: available - 1, at: now }] as const
          : [Math.ceil((1 - available) / perMilli), { tokens: available, at: now }] as const
      })).pipe(
        Effect.flatMap((waitMillis) =>
          waitMillis === 0 ? Effect.void : Effect.fail(
            new RateLimited({
              message: `more than ${perMinute} calls a minute; retry after ${Math.ceil(waitMillis / 1000)} s`,
              retryAfterMillis: waitMillis
            })
          )
        )
      )
    return RateLimiter.of({ take })
  })

export const RateLimiterLive = Layer.effect(
  RateLimiter,
  Effect.flatMap(Settings, (s) => makeRateLimiter(s.rateLimitPerMinute))
)
