import { Effect, Schema } from "effect"
import { type TaskStatus, taskStatuses } from "../../domain/tasks.js"
import type { GraphDatabaseShape } from "../../services/GraphDatabase.js"
import type { TaskCountDrift } from "../../services/StoreCheck.js"

/**
 * The board's totals, kept on write: one counter a stored status on the queue's TALLY edge (`n_open`,
 * ..., taskMap.ts: an edge, so a statement that creates a task pays nothing for changing them).
 * The statement that moves a task from one status to another moves its counters in the same atomic
 * statement (post, claim, finish, approve or reject, import), so a list's totals read one edge and
 * the claims whose lease ran out (through the lease_until index), never the whole board (50,000
 * tasks: 5 ms through the status index, one status at a time). A graph from before schema 5 gets its
 * counters from one recount (below), and `check-db --verify` recounts to find drift.
 */
const counter = (s: TaskStatus) => `n_${s}`

/**
 * The SET items that move one task's count from `from` to `to` (Cypher expressions naming a status;
 * null for none: a new task comes from none, a task that stays where it is goes to none).
 */
export const moveCount = (q: string, from: string, to: string): string =>
  taskStatuses.map((s) =>
    `${q}.${counter(s)} = coalesce(${q}.${counter(s)}, 0) + CASE WHEN ${to} = '${s}' THEN 1 ELSE 0 END ` +
    `- CASE WHEN ${from} = '${s}' THEN 1 ELSE 0 END`
  ).join(", ")

/** The counters on the TALLY edge bound as `qt`, as a list in `taskStatuses` order (0 where it has none yet). */
export const countsOf = (q: string): string =>
  `[${taskStatuses.map((s) => `coalesce(${q}.${counter(s)}, 0)`).join(", ")}]`

/**
 * Every task counted by the status on its STATE edge (taskMap.ts), as a list in `taskStatuses` order.
 * From the Task label: an unlabelled `(t)` was a scan of every node (8.6 s at 1M facts, no tasks).
 */
const recount = `MATCH (t:Task)-[t_s:STATE]->() WITH t_s.status AS s, count(t) AS n WITH collect([s, n]) AS found ` +
  `WITH [s IN $statuses | coalesce(head([p IN found WHERE p[0] = s | p[1]]), 0)] AS counted, ` +
  `reduce(all = 0, p IN found | all + p[1]) AS tasks `

/**
 * Schema 5: the counters from one recount of every task, in one statement so no write lands between
 * the count and the counters (a graph without tasks gets no queue node), on the TALLY edge, which
 * also takes over the queue's last place. Idempotent: run again, it counts the same and keeps the
 * edge's place.
 */
export const recountQuery = `${recount}WHERE tasks > 0 ` +
  // Before schema 5 the last place was the node's `tail` (and before 6 its head): the edge takes them over.
  `MERGE (q:TaskQueue {key: 'queue'}) ` +
  `MERGE (q)-[qt:TALLY]->(q) ON CREATE SET qt.tail = coalesce(q.tail, 0), qt.head = coalesce(q.head, 1) ` +
  `SET ${taskStatuses.map((s, i) => `qt.${counter(s)} = counted[${i}]`).join(", ")}`

export const countTasks = (db: Pick<GraphDatabaseShape, "write">) => db.write(recountQuery, { statuses: taskStatuses })

export const taskDriftQuery = `${recount}OPTIONAL MATCH (q:TaskQueue {key: 'queue'})-[qt:TALLY]->(q) ` +
  `RETURN counted, ${countsOf("qt")} AS stored`

const DriftRow = Schema.Struct({ counted: Schema.Array(Schema.Number), stored: Schema.Array(Schema.Number) })

/**
 * `check-db --verify`: the counters against a recount, both read in one statement (a consistent
 * snapshot while others write). Its work grows with the board: it is a check, not a read of a tool.
 */
export const taskCountDrift = Effect.fn("relay/tasks/countDrift")(
  function*(db: Pick<GraphDatabaseShape, "read">) {
    const row = (yield* db.read(taskDriftQuery, { statuses: taskStatuses }, DriftRow))[0]
    if (row === undefined) return []
    return taskStatuses.flatMap((status, i): Array<TaskCountDrift> =>
      row.counted[i] === row.stored[i] ? [] : [{ status, stored: row.stored[i] ?? 0, counted: row.counted[i] ?? 0 }]
    )
  }
)
