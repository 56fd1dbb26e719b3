import { Effect } from "effect"
import type { ToolError } from "../domain/errors.js"
import { RateLimiter } from "../services/RateLimiter.js"
import { retryTransient } from "./retry.js"
import { withCallBudget } from "./timeout.js"

/**
 * The policies every tool call goes through, in one place: the rate limit first (a refused call
 * costs nothing), then retry of transient database failures, all inside one time budget.
 * Redaction happens at the MCP edge, where failures become contract codes.
 */
export const applyPolicies = <A, R>(call: Effect.Effect<A, ToolError, R>, wholeGraph = false) =>
  Effect.flatMap(RateLimiter, (limiter) => limiter.take).pipe(
    Effect.zipRight(withCallBudget(retryTransient(call), wholeGraph))
  )
