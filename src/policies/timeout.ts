import { Effect } from "effect"
import { DatabaseError, type ToolError } from "../domain/errors.js"
import { CallWatchdog } from "../services/CallWatchdog.js"
import { ownQueryTimeout } from "../services/GraphDatabase.js"

/**
 * Every call within `callBudget` (2.5 s, the contract's 3 s less time for the reply), kept by the CallWatchdog: one timer for all calls. The
 * budget is the only timer of a call: the queries inside it skip their own timeout
 * (`ownQueryTimeout`), and a query cut short by the budget drops its connection as a timed-out one
 * would (FalkorDbLive).
 */
export const withCallBudget = <A, R>(self: Effect.Effect<A, ToolError, R>) =>
  Effect.flatMap(CallWatchdog, (watchdog) =>
    watchdog.within(
      Effect.locally(self, ownQueryTimeout, false),
      () => new DatabaseError({ reason: "timeout", detail: "tool call timed out (over its time budget)" })
    ))
