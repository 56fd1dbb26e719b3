import { Duration, Effect } from "effect"
import { DatabaseError, type ToolError } from "../domain/errors.js"
import { CallWatchdog } from "../services/CallWatchdog.js"
import { ownQueryTimeout } from "../services/GraphDatabase.js"

/**
 * The contract: with the database down every tool answers within 3 s. A hung server costs a 2 s
 * query timeout, a retry and a connect that hangs too; 2.5 s leaves half a second for the reply
 * to reach the client on a busy machine.
 *
 * The budget is the only timer of a call: the queries inside it skip their own timeout
 * (`ownQueryTimeout`), and a query cut short by the budget drops its connection as a timed-out one
 * would (FalkorDbLive). The CallWatchdog keeps the time (one timer for all calls).
 */
export const callBudget = Duration.millis(2500)

export const withCallBudget = <A, R>(self: Effect.Effect<A, ToolError, R>) =>
  Effect.flatMap(CallWatchdog, (watchdog) =>
    watchdog.timeoutFail(Effect.locally(self, ownQueryTimeout, false), {
      duration: callBudget,
      onTimeout: () => new DatabaseError({ reason: "timeout", detail: "tool call timed out (over its time budget)" })
    }))
