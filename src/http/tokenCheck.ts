import { Clock, Effect, Either } from "effect"
import type { ToolError } from "../domain/errors.js"
import { type Caller, hashToken } from "../domain/tokens.js"
import { retryTransient } from "../policies/retry.js"
import { withCallBudget } from "../policies/timeout.js"
import type { CallWatchdog } from "../services/CallWatchdog.js"
import type { TokenStoreShape } from "../services/TokenStore.js"

interface Checked {
  readonly caller: Caller
  readonly at: number
}

/**
 * The token check of every HTTP request. A token the database accepted is believed for `recheckMillis`
 * (by Effect's Clock) and then asked about again, so a revoked token stops within that time instead of
 * at once; in exchange a request of a busy session costs no database round trip (it was 1.4 ms of a
 * 4 ms gap to stdio). 0 asks the database on every request.
 *
 * Keyed by the token's SHA-256, never the token, so the long-lived map holds no secret. Only accepted
 * tokens are kept (a wrong or revoked one is asked about every time, as before), so the map is bounded
 * by the live tokens in the admin graph; `forgetStale` drops the entries past their window.
 *
 * Answers Left when the database could not say (down, failing over, hung) even after the tool calls'
 * retries and inside their time budget; Right(null) for a token that is not good.
 */
export const makeTokenCheck = (tokens: TokenStoreShape, recheckMillis: number) => {
  const accepted = new Map<string, Checked>()
  const ask = (presented: string, key: string) =>
    tokens.verify(presented).pipe(
      retryTransient,
      withCallBudget,
      Effect.tap((caller) => {
        if (caller === null) return Effect.sync(() => accepted.delete(key))
        return Clock.currentTimeMillis.pipe(Effect.map((at) => accepted.set(key, { caller, at })))
      }),
      Effect.tapError((e) =>
        Effect.logWarning("relay http: token check failed").pipe(
          Effect.annotateLogs({ detail: e._tag === "DatabaseError" ? e.detail : e._tag })
        )
      )
    )
  const check = (presented: string): Effect.Effect<Either.Either<Caller | null, ToolError>, never, CallWatchdog> =>
    Effect.gen(function*() {
      const key = hashToken(presented)
      const known = accepted.get(key)
      if (known !== undefined && (yield* Clock.currentTimeMillis) - known.at < recheckMillis) {
        return Either.right(known.caller)
      }
      return yield* Effect.either(ask(presented, key))
    })
  const forgetStale = Clock.currentTimeMillis.pipe(
    Effect.map((now) => {
      for (const [key, known] of accepted) if (now - known.at >= recheckMillis) accepted.delete(key)
    })
  )
  return { check, forgetStale, remembered: () => accepted.size }
}
