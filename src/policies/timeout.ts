import { Duration, Effect } from "effect"
import { DatabaseError, type ToolError } from "../domain/errors.js"
import { ownQueryTimeout, statementTimeout } from "../services/GraphDatabase.js"

/**
 * The contract: with the database down every tool answers within 3 s. A hung server costs a 2 s
 * query timeout, a retry and a connect that hangs too; 2.5 s leaves half a second for the reply
 * to reach the client on a busy machine.
 */
export const callBudget = Duration.millis(2500)

/**
 * Every call within `callBudget`. The budget is the only timer of a call: the queries inside it
 * skip their own timeout (`ownQueryTimeout`), and a query cut short by the budget drops its
 * connection as a timed-out one would (FalkorDbLive).
 */
export const withCallBudget = <A, R>(self: Effect.Effect<A, ToolError, R>, wholeGraph = false) =>
  (wholeGraph
    ? Effect.locally(self, statementTimeout, wholeGraphBudget.statement)
    : Effect.locally(self, ownQueryTimeout, false))
    .pipe(
      Effect.timeoutFail({
        duration: wholeGraph ? wholeGraphBudget.call : callBudget,
        onTimeout: () => new DatabaseError({ reason: "timeout", detail: "tool call timed out (over its time budget)" })
      })
    )

/**
 * A tool that reads the whole graph in bounded statements (importance, clusters: ~4-5 s at 1M facts,
 * no statement over 0.1 s) gets 15 s, and each of its statements its own timer of 0.7 s: a server
 * that stops answering still fails it within 3 s (three tries of 0.7 s and the retry's waits), as
 * the contract asks of every tool.
 */
export const wholeGraphBudget = { call: Duration.seconds(15), statement: Duration.millis(700) }
