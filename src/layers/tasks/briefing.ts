import { Effect, Schema } from "effect"
import { TaskFromRow } from "../../domain/tasks.js"
import { Stamp } from "../../domain/time.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { TaskBriefing, TaskBriefingRequest } from "../../services/TaskStore.js"
import { byState, taskMap, withState } from "./taskMap.js"

/**
 * The four lists in one statement (they were four, a quarter of a briefing's statements), each
 * branch through its own index (created_at, STATE's lease_until, TaskNote.created_at, STATE's
 * status) and stopped at its limit. Each branch names its task variable apart: FalkorDB 4.16 binds a comprehension
 * variable (taskMap's) once per query. Held is `claimed` on a live lease, never a lease alone: a
 * finished task's STATE edge kept its last lease before finish.ts cleared it outside its FOREACH
 * (graphs written then still hold such leases), so every reader checks the status too.
 */
const none = "null AS note, null AS by, null AS at"
const sectionQuery =
  `MATCH (tp:Task) WHERE tp.created_at > $since AND tp.created_at <= $asOf AND tp.written_by <> $name ` +
  `WITH tp ORDER BY tp.created_at DESC LIMIT $limit ${withState("tp")}` +
  `RETURN 'posted' AS list, ${taskMap("tp")} AS task, ${none} ` +
  `UNION ALL ${byState("tc", "tc_s.lease_until > $now AND tc_s.status = 'claimed' AND tc_s.holder <> $name")}` +
  `WITH tc, tc_s ORDER BY tc_s.lease_until LIMIT $limit RETURN 'claimed' AS list, ${taskMap("tc")} AS task, ${none} ` +
  `UNION ALL MATCH (n:TaskNote)-[:NOTE_ON]->(tf:Task) ` +
  `WHERE n.created_at > $since AND n.created_at <= $asOf AND n.outcome = 'failed' ` +
  `WITH n, tf ORDER BY n.created_at DESC LIMIT $limit ${withState("tf")}` +
  `RETURN 'failed' AS list, ${taskMap("tf")} AS task, n.note AS note, n.by AS by, n.created_at AS at ` +
  `UNION ALL ${byState("ta", "ta_s.status = 'awaiting_approval'")}` +
  `WITH ta, ta_s ORDER BY ta.created_at LIMIT $limit RETURN 'awaiting' AS list, ${taskMap("ta")} AS task, ${none}`

const SectionRow = Schema.Struct({
  list: Schema.Literal("posted", "claimed", "failed", "awaiting"),
  task: TaskFromRow,
  note: Schema.NullOr(Schema.String),
  by: Schema.NullOr(Schema.String),
  at: Schema.NullOr(Stamp)
})

export const briefing = Effect.fn("relay/tasks/briefing")(
  function*(db: GraphDatabase["Type"], now: number, r: TaskBriefingRequest) {
    const rows = yield* db.read(
      sectionQuery,
      { since: r.since, asOf: r.asOf, name: r.name, limit: r.limit, now },
      SectionRow
    )
    const tasksOf = (list: typeof SectionRow.Type["list"]) => rows.filter((x) => x.list === list).map((x) => x.task)
    const out: TaskBriefing = {
      posted: tasksOf("posted"),
      claimedByOthers: tasksOf("claimed"),
      failures: rows.filter((x) => x.list === "failed").map((f) => ({
        task: f.task,
        note: f.note,
        by: f.by ?? "",
        at: f.at ?? 0
      })),
      awaitingApproval: tasksOf("awaiting")
    }
    return out
  }
)
