import { Effect, Schema } from "effect"
import type { GraphDatabaseShape } from "../../services/GraphDatabase.js"

/** What a task's STATE edge keeps (taskMap.ts); before schema 6 these were the node's. */
const changing = [
  "status",
  "seq",
  "holder",
  "fence",
  "lease_until",
  "claim_id",
  "claimed_at",
  "attempts",
  "last_outcome",
  "last_note",
  "finished_at",
  "finished_by",
  "decided_by",
  "decided_at"
] as const

/**
 * Schema 6, one batch: tasks that still keep a status on the node get a STATE edge with their
 * changing fields, and the node loses them, in one statement (a task is moved whole or not at all,
 * so a migration stopped anywhere and run again moves the rest). CREATE leaves out the fields a task
 * has no value for, as a post does.
 */
export const moveQuery = `MATCH (t:Task) WHERE t.status IS NOT NULL WITH t LIMIT $batch ` +
  `CREATE (t)-[:STATE {${changing.map((p) => `${p}: t.${p}`).join(", ")}}]->(t) ` +
  `SET ${changing.map((p) => `t.${p} = null`).join(", ")} ` +
  `RETURN count(t) AS moved`

/** The queue's head moves to its TALLY edge (a graph from before schema 5 gets it with the edge, taskCounts.ts). */
const headQuery = `MATCH (q:TaskQueue {key: 'queue'})-[qt:TALLY]->(q) WHERE qt.head IS NULL ` +
  `SET qt.head = coalesce(q.head, 1), q.head = null`

const Moved = Schema.Struct({ moved: Schema.Number })

export const moveTaskState = Effect.fn("relay/tasks/moveTaskState")(
  function*(db: Pick<GraphDatabaseShape, "write">, batch: number) {
    for (;;) {
      const moved = (yield* db.write(moveQuery, { batch }, Moved))[0]?.moved ?? 0
      if (moved < batch) break
    }
    yield* db.write(headQuery, {})
  }
)
