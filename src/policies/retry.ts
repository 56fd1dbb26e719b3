import { Effect, Schedule } from "effect"
import type { ToolError } from "../domain/errors.js"

/**
 * At most 3 tries in all (2 retries), exponential from 100 ms with jitter: the waits add up to
 * about 0.3 s and never more than 0.4 s, well inside the contract's 2 s.
 */
export const transientRetrySchedule = Schedule.exponential("100 millis", 2).pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(2))
)

/** Only a lost connection or a timeout is worth another try; bad input, missing facts and secrets never are. */
export const isTransient = (error: ToolError): boolean => error._tag === "DatabaseError" && error.transient

/**
 * Every write a tool makes is safe to repeat: a fact's id is made once per call before the first try
 * (or derived from the client's request_id, which makes the client's own retries safe too) and MERGEd, a resolution is a MERGE on the pair, and the briefing fence only moves a clock forward.
 */
export const retryTransient = <A, E extends ToolError, R>(self: Effect.Effect<A, E, R>) =>
  Effect.retry(self, { schedule: transientRetrySchedule, while: isTransient })
