import { Clock, Effect } from "effect"

/**
 * The Clock's now as a stamp for a write: never below 1, because FalkorDB 4.16's range index leaves
 * out the value 0 (`WHERE f.created_at >= 0` misses a fact stamped 0), and a TestClock starts at 0.
 */
export const stampNow = Effect.map(Clock.currentTimeMillis, (millis) => Math.max(millis, 1))
