import { Duration, Effect } from "effect"
import { DatabaseError, type ToolError } from "../domain/errors.js"

/**
 * The contract: with the database down every tool answers within 3 s. A hung server costs a 2 s
 * query timeout, a retry and a connect that hangs too; 2.5 s leaves half a second for the reply
 * to reach the client on a busy machine.
 */
export const callBudget = Duration.millis(2500)

export const withCallBudget = <A, R>(self: Effect.Effect<A, ToolError, R>) =>
  Effect.timeoutFail(self, {
    duration: callBudget,
    onTimeout: () => new DatabaseError({ transient: true, detail: "tool call exceeded its time budget" })
  })
