import { Effect, Schema } from "effect"
import { InvalidInput, noFactWithId } from "../../domain/errors.js"
import { TaskFromRow } from "../../domain/tasks.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { NewTask } from "../../services/TaskStore.js"
import { moveCount } from "./taskCounts.js"
import { queueNode, taskById, taskMap } from "./taskMap.js"

/**
 * Posts a task in one statement (the task node and its STATE edge, taskMap.ts): a place in the
 * queue (`seq`, from the queue's tail) unless it waits for approval, and an ABOUT edge to each fact
 * it names (all must exist, or nothing is written). A task with this id already (a retry of the same
 * request_id) is answered as it stands.
 */
const postQuery = `${queueNode} ` +
  `WITH q, qt OPTIONAL MATCH (old:Task {id: $id}) ` +
  `WITH q, qt, old OPTIONAL MATCH (f:Fact) WHERE old IS NULL AND f.id IN $about ` +
  `WITH q, qt, old, collect(f) AS facts, qt.tail + 1 AS place ` +
  `FOREACH (_ IN CASE WHEN old IS NULL AND size(facts) = size($about) THEN [1] ELSE [] END | ` +
  `SET qt.tail = place, ${
    moveCount("qt", "null", "CASE WHEN $needsApproval THEN 'awaiting_approval' ELSE 'open' END")
  } ` +
  `CREATE (t:Task {id: $id, title: $title, detail: $detail, written_by: $writtenBy, created_at: $now, ` +
  `needs_approval: $needsApproval, max_attempts: $maxAttempts, procedure_id: $procedure})-[:STATE {` +
  `status: CASE WHEN $needsApproval THEN 'awaiting_approval' ELSE 'open' END, attempts: 0, fence: 0, ` +
  `seq: CASE WHEN $needsApproval THEN null ELSE place END}]->(t) ` +
  `FOREACH (af IN facts | CREATE (t)-[:ABOUT {created_at: $now}]->(af))) ` +
  `WITH old, [x IN $about WHERE NOT x IN [g IN facts | g.id]] AS missing ` +
  `${taskById("$id", true)}` +
  `RETURN old IS NOT NULL AS existing, missing, ` +
  `CASE WHEN t IS NULL THEN null ELSE ${taskMap("t")} END AS task, ` +
  `t.title AS title, t.detail AS detail, t.needs_approval AS needs, t.max_attempts AS max`

const Row = Schema.Struct({
  existing: Schema.Boolean,
  missing: Schema.Array(Schema.String),
  task: Schema.NullOr(TaskFromRow),
  title: Schema.NullOr(Schema.String),
  detail: Schema.NullOr(Schema.String),
  needs: Schema.NullOr(Schema.Boolean),
  max: Schema.NullOr(Schema.Number)
})

export const requestIdReused = "request_id: was already used for a different task; use a new request_id for a new task"

export const post = Effect.fn("relay/tasks/post")(function*(db: GraphDatabase["Type"], now: number, t: NewTask) {
  const rows = yield* db.write(postQuery, {
    id: t.id,
    title: t.title,
    detail: t.detail,
    writtenBy: t.writtenBy,
    about: [...t.about],
    needsApproval: t.needsApproval,
    maxAttempts: t.maxAttempts,
    procedure: t.procedureId ?? null,
    now
  }, Row)
  const row = rows[0]
  if (row === undefined) return yield* Effect.dieMessage("post returned no row")
  if (!row.existing && row.missing.length > 0) return yield* noFactWithId("about", row.missing[0]!)
  if (row.task === null) return yield* Effect.dieMessage("post made no task")
  if (
    row.existing &&
    (row.title !== t.title || row.detail !== t.detail || row.needs !== t.needsApproval || row.max !== t.maxAttempts)
  ) return yield* new InvalidInput({ message: requestIdReused })
  return { task: row.task, existing: row.existing }
})
