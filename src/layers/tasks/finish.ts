import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { TaskNotFound } from "../../domain/errors.js"
import { ProcedureRunOfTask, TaskFromRow } from "../../domain/tasks.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { FinishRequest } from "../../services/TaskStore.js"
import { runWrite } from "../procedures/runs.js"
import { leaseLost } from "./claim.js"
import { moveCount } from "./taskCounts.js"
import { queueNode, taskById, taskMap } from "./taskMap.js"

/**
 * Issue 44: a task that follows a procedure (`procedure_id`, set on post) records that procedure's
 * run in the same statement when it finishes done (a success) or failed (a failure, the note its
 * note), so the board and the run record agree; a release records nothing, nor does a repeat.
 */
const runOutcome = `CASE WHEN $outcome = 'done' THEN 'success' ELSE 'failure' END`
const procedureRun = `WITH t, t_s, verdict OPTIONAL MATCH (tp:Fact {id: t.procedure_id}) ` +
  `WHERE verdict = 'finish' AND $outcome IN ['done', 'failed'] AND tp.kind = 'procedure' ` +
  `WITH t, t_s, verdict, tp, coalesce(tp.runs_ok, 0) AS tp_s, coalesce(tp.runs_failed, 0) AS tp_f ` +
  runWrite({
    p: "tp",
    s: "tp_s",
    f: "tp_f",
    cond: "tp IS NOT NULL",
    id: "$runId",
    outcome: runOutcome,
    step: "null",
    note: "$note",
    by: "$by",
    task: "t.id"
  }) +
  `WITH t, t_s, verdict, CASE WHEN tp IS NULL THEN null ELSE {procedure_id: tp.id, outcome: ${runOutcome}, ` +
  `success: tp_s + CASE WHEN $outcome = 'done' THEN 1 ELSE 0 END, ` +
  `failure: tp_f + CASE WHEN $outcome = 'done' THEN 0 ELSE 1 END} END AS run `

/**
 * Finishes a task in one compare-and-set statement: only the holder with the current fence. `failed`
 * counts an attempt and requeues the task at the tail until its attempts are used up; `released`
 * requeues it without counting. A failure, or any finish with a note, leaves a TaskNote (what was
 * tried, for the briefing and the next agent). The same finish again (same fence and outcome) is a
 * retry of one that landed, answered as it stands.
 */
const finishQuery = `${taskById("$id")}` +
  `WITH t, t_s, CASE ` +
  `WHEN t_s.holder = $by AND t_s.fence = $fence AND t_s.status = 'claimed' THEN 'finish' ` +
  `WHEN t_s.holder = $by AND t_s.fence = $fence AND t_s.last_outcome = $outcome THEN 'repeat' ` +
  `ELSE 'lease_lost' END AS verdict, ` +
  `CASE WHEN $outcome = 'failed' THEN t_s.attempts + 1 ELSE t_s.attempts END AS attempts ` +
  `WITH t, t_s, verdict, attempts, CASE WHEN $outcome = 'done' THEN 'done' ` +
  `WHEN attempts >= t.max_attempts THEN 'failed' ELSE 'open' END AS next ` +
  `${queueNode} ` +
  // The new place is computed before any SET: FalkorDB 4.16 reads a property SET earlier in the same FOREACH as its old value.
  `WITH t, t_s, verdict, attempts, next, qt, qt.tail + 1 AS place ` +
  // Outside the FOREACH: cleared in it, FalkorDB 4.16 kept a re-claimed task's lease and dropped finished_by instead.
  `SET t_s.lease_until = CASE WHEN verdict = 'finish' THEN null ELSE t_s.lease_until END ` +
  `FOREACH (_ IN CASE WHEN verdict = 'finish' THEN [1] ELSE [] END | ` +
  `SET t_s.status = next, t_s.attempts = attempts, t_s.last_outcome = $outcome, ` +
  `t_s.last_note = $note, t_s.finished_at = $now, t_s.finished_by = $by, ${moveCount("qt", "'claimed'", "next")}) ` +
  `FOREACH (_ IN CASE WHEN verdict = 'finish' AND next = 'open' THEN [1] ELSE [] END | ` +
  `SET qt.tail = place, t_s.seq = place) ` +
  `FOREACH (_ IN CASE WHEN verdict = 'finish' AND ($note IS NOT NULL OR $outcome = 'failed') THEN [1] ELSE [] END | ` +
  `CREATE (:TaskNote {id: $noteId, task_id: t.id, outcome: $outcome, note: $note, by: $by, fence: $fence, ` +
  `created_at: $now})-[:NOTE_ON {created_at: $now}]->(t)) ` +
  procedureRun +
  `RETURN verdict, ${taskMap("t")} AS task, run`

const Row = Schema.Struct({
  verdict: Schema.Literal("finish", "repeat", "lease_lost"),
  task: TaskFromRow,
  run: Schema.NullOr(ProcedureRunOfTask)
})

export const finish = Effect.fn("relay/tasks/finish")(
  function*(db: GraphDatabase["Type"], now: number, r: FinishRequest) {
    const rows = yield* db.write(finishQuery, {
      id: r.taskId,
      by: r.claimedBy,
      fence: r.fence,
      outcome: r.outcome,
      note: r.note,
      noteId: randomUUID(),
      runId: randomUUID(),
      now
    }, Row)
    const row = rows[0]
    if (row === undefined) return yield* new TaskNotFound({ message: "task_id: no task with that id" })
    if (row.verdict === "lease_lost") return yield* leaseLost
    return { task: row.task, repeat: row.verdict === "repeat", run: row.run }
  }
)
