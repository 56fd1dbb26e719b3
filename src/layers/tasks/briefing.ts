import { Effect, Schema } from "effect"
import { TaskFromRow } from "../../domain/tasks.js"
import { Stamp } from "../../domain/time.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { TaskBriefing, TaskBriefingRequest } from "../../services/TaskStore.js"
import { TaskColumn, taskMap } from "./taskMap.js"

/** Each list reads through an index (created_at, lease_until, status, TaskNote.created_at) and stops at its limit. */
const postedQuery = `MATCH (t:Task) WHERE t.created_at > $since AND t.created_at <= $asOf AND t.written_by <> $name ` +
  `WITH t ORDER BY t.created_at DESC LIMIT $limit RETURN ${taskMap("t")} AS task`

const claimedQuery = `MATCH (t:Task) WHERE t.lease_until > $now AND t.holder <> $name ` +
  `WITH t ORDER BY t.lease_until LIMIT $limit RETURN ${taskMap("t")} AS task`

const failuresQuery = `MATCH (n:TaskNote)-[:NOTE_ON]->(t:Task) ` +
  `WHERE n.created_at > $since AND n.created_at <= $asOf AND n.outcome = 'failed' ` +
  `WITH n, t ORDER BY n.created_at DESC LIMIT $limit ` +
  `RETURN ${taskMap("t")} AS task, n.note AS note, n.by AS by, n.created_at AS at`

const awaitingQuery = `MATCH (t:Task {status: 'awaiting_approval'}) ` +
  `WITH t ORDER BY t.created_at LIMIT $limit RETURN ${taskMap("t")} AS task`

const FailureRow = Schema.Struct({
  task: TaskFromRow,
  note: Schema.NullOr(Schema.String),
  by: Schema.String,
  at: Stamp
})

export const briefing = Effect.fn("relay/tasks/briefing")(
  function*(db: GraphDatabase["Type"], now: number, r: TaskBriefingRequest) {
    const params = { since: r.since, asOf: r.asOf, name: r.name, limit: r.limit, now }
    const [posted, claimed, failures, awaiting] = yield* Effect.all([
      db.read(postedQuery, params, TaskColumn),
      db.read(claimedQuery, params, TaskColumn),
      db.read(failuresQuery, params, FailureRow),
      db.read(awaitingQuery, params, TaskColumn)
    ])
    const out: TaskBriefing = {
      posted: posted.map((p) => p.task),
      claimedByOthers: claimed.map((c) => c.task),
      failures: failures.map((f) => ({ task: f.task, note: f.note, by: f.by, at: f.at })),
      awaitingApproval: awaiting.map((a) => a.task)
    }
    return out
  }
)
