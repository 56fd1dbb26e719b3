import { Effect, Schema } from "effect"
import { taskStatuses } from "../../domain/tasks.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { TaskListRequest, TaskTotals } from "../../services/TaskStore.js"
import { shownStatus, TaskColumn, taskMap } from "./taskMap.js"

/**
 * The roots of `$thread`'s thread (the ancestors through BUILDS_ON with no parent of their own; none
 * when `$thread` is null), and a task's test of being about a fact under one of them.
 */
const threadRoots = `OPTIONAL MATCH (s:Fact {id: $thread})-[:BUILDS_ON*0..]->(r:Fact) ` +
  `WHERE outdegree(r, 'BUILDS_ON') = 0 ` +
  `WITH collect(DISTINCT r) AS roots `
const inThread = `($thread IS NULL OR size([(t)-[:ABOUT]->(ta:Fact) WHERE ta IN roots OR ` +
  `size([(ta)-[:BUILDS_ON*1..]->(tr) WHERE tr IN roots | 1]) > 0 | 1]) > 0)`

const filtered = `${threadRoots} MATCH (t:Task) ` +
  `WITH t, roots, ${shownStatus("t")} AS shown ` +
  `WHERE ($claimedBy IS NULL OR t.holder = $claimedBy) AND ${inThread} `

/** A page newest first, keyset on (created_at, id). */
const pageQuery = `${filtered} AND ($status IS NULL OR shown = $status) ` +
  `AND ($afterAt IS NULL OR t.created_at < $afterAt OR (t.created_at = $afterAt AND t.id < $afterId)) ` +
  `WITH t ORDER BY t.created_at DESC, t.id DESC LIMIT $take ` +
  `RETURN ${taskMap("t")} AS task`

/** How many tasks of each status pass the other filters. */
const totalsQuery = `${filtered} RETURN shown AS status, count(t) AS n`

const TotalRow = Schema.Struct({ status: Schema.String, n: Schema.Number })

export const list = Effect.fn("relay/tasks/list")(
  function*(db: GraphDatabase["Type"], now: number, r: TaskListRequest) {
    const params = { now, claimedBy: r.claimedBy, thread: r.thread }
    const [rows, totals] = yield* Effect.all([
      db.read(pageQuery, {
        ...params,
        status: r.status,
        afterAt: r.after?.[0] ?? null,
        afterId: r.after?.[1] ?? null,
        take: r.limit + 1
      }, TaskColumn),
      db.read(totalsQuery, params, TotalRow)
    ])
    const counts = Object.fromEntries(taskStatuses.map((s) => [s, 0])) as Record<string, number>
    for (const t of totals) counts[t.status] = t.n
    return {
      tasks: rows.slice(0, r.limit).map((row) => row.task),
      more: rows.length > r.limit,
      totals: counts as TaskTotals
    }
  }
)
