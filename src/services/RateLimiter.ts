import { Context, type Effect } from "effect"
import type { RateLimited } from "../domain/errors.js"

/** A per-process budget of tool calls. */
export class RateLimiter extends Context.Tag("relay/RateLimiter")<RateLimiter, {
  readonly take: Effect.Effect<void, RateLimited>
}>() {}
