import { Effect, Schema } from "effect"
import { InvalidInput, TaskNotFound } from "../../domain/errors.js"
import { TaskFromRow } from "../../domain/tasks.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { moveCount } from "./taskCounts.js"
import { queueNode, taskById, taskMap } from "./taskMap.js"

/**
 * A person's decision on a task awaiting approval, in one statement: approved, it enters the queue at
 * the tail (open); rejected, it stays out for good. Any other status is left as it is.
 */
const decideQuery = `${taskById("$id")}` +
  `${queueNode} ` +
  `WITH t, t_s, qt, t_s.status = 'awaiting_approval' AS pending, qt.tail + 1 AS place ` +
  `FOREACH (_ IN CASE WHEN pending AND $approve THEN [1] ELSE [] END | ` +
  `SET qt.tail = place, t_s.status = 'open', t_s.seq = place) ` +
  `FOREACH (_ IN CASE WHEN pending AND NOT $approve THEN [1] ELSE [] END | SET t_s.status = 'rejected') ` +
  `FOREACH (_ IN CASE WHEN pending THEN [1] ELSE [] END | SET t_s.decided_by = $by, t_s.decided_at = $now, ` +
  `${moveCount("qt", "'awaiting_approval'", "CASE WHEN $approve THEN 'open' ELSE 'rejected' END")}) ` +
  `RETURN pending, ${taskMap("t")} AS task`

const Row = Schema.Struct({ pending: Schema.Boolean, task: TaskFromRow })

/** Why a decision was refused: the task's (shown) status is not awaiting approval. */
export const notPendingMessage = (status: string): string =>
  `task_id: the task is not awaiting approval (it is ${status.replace("_", " ")})`

export const decide = Effect.fn("relay/tasks/decide")(
  function*(db: GraphDatabase["Type"], now: number, id: string, approve: boolean, by: string) {
    const rows = yield* db.write(decideQuery, { id, approve, by, now }, Row)
    const row = rows[0]
    if (row === undefined) return yield* new TaskNotFound({ message: "task_id: no task with that id" })
    if (!row.pending) {
      return yield* new InvalidInput({ message: notPendingMessage(row.task.status) })
    }
    return row.task
  }
)
