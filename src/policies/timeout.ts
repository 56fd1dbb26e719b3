import { Duration, Effect } from "effect"
import { DatabaseError, type ToolError } from "../domain/errors.js"

/** The contract: with the database down every tool answers within 3 s; leave room for the reply. */
export const callBudget = Duration.millis(2800)

export const withCallBudget = <A, R>(self: Effect.Effect<A, ToolError, R>) =>
  Effect.timeoutFail(self, {
    duration: callBudget,
    onTimeout: () => new DatabaseError({ transient: true, detail: "tool call exceeded its time budget" })
  })
