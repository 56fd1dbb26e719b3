import { Cache, Duration, Effect, Either, Exit, FiberRef } from "effect"
import type { DatabaseError, ToolError } from "../domain/errors.js"
import { type Caller, hashToken } from "../domain/tokens.js"
import { retryTransient } from "../policies/retry.js"
import { withCallBudget } from "../policies/timeout.js"

/** Accepted tokens remembered at most; past it the least recently used is asked about again. */
const capacity = 10_000

/** The token being checked, handed to the Cache's lookup by the fiber that asks (the key is only its hash). */
const presentedRef = FiberRef.unsafeMake("")

/**
 * The token check of every HTTP request, on Effect's Cache. A token the database accepted is believed
 * for `recheckMillis` (by Effect's Clock) and then asked about again, so a revoked token stops within
 * that time instead of at once; in exchange a request of a busy session costs no database round trip.
 * A refused token, or a check the database could not answer, is remembered for no time at all. 0 asks
 * the database on every request.
 *
 * Keyed by the token's SHA-256, never the token, so the long-lived cache holds no secret: the token
 * reaches the lookup through a FiberRef of the asking fiber (the Cache runs a lookup in the fiber whose
 * get missed).
 *
 * Answers Left when the database could not say (down, failing over, hung) even after the tool calls'
 * retries and inside their time budget; Right(null) for a token that is not good.
 */
export const makeTokenCheck = (
  verify: (presented: string) => Effect.Effect<Caller | null, DatabaseError>,
  recheckMillis: number
) =>
  Effect.gen(function*() {
    const cache = yield* Cache.makeWith({
      capacity,
      lookup: (_hash: string) =>
        FiberRef.get(presentedRef).pipe(
          Effect.flatMap((presented) => verify(presented)),
          retryTransient,
          withCallBudget,
          Effect.tapError((e: ToolError) =>
            Effect.logWarning("relay http: token check failed").pipe(
              Effect.annotateLogs({ detail: e._tag === "DatabaseError" ? e.detail : e._tag })
            )
          )
        ),
      // The Cache drops an entry once its time is strictly past: 1 ms less makes the window end at
      // recheckMillis itself.
      timeToLive: (exit) =>
        Exit.isSuccess(exit) && exit.value !== null ? Duration.millis(Math.max(0, recheckMillis - 1)) : Duration.zero
    })
    // A refusal or a failed check is dropped at once (a zero time to live still holds on a clock that
    // has not moved), and so is everything with a window of 0.
    const forget = (key: string) => cache.invalidate(key)
    const check = (presented: string): Effect.Effect<Either.Either<Caller | null, ToolError>> => {
      const key = hashToken(presented)
      return Effect.locally(cache.get(key), presentedRef, presented).pipe(
        Effect.tap((caller) => caller === null || recheckMillis === 0 ? forget(key) : Effect.void),
        Effect.tapError(() => forget(key)),
        Effect.either
      )
    }
    return { check }
  })
