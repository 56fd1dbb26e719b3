import { Effect, Schema } from "effect"
import { type TaskStatus, taskStatuses } from "../../domain/tasks.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { TaskListRequest, TaskTotals } from "../../services/TaskStore.js"
import { neverStale } from "../factStore/staleness.js"
import { threadMembers } from "../factStore/threadScope.js"
import { shownStatus, TaskColumn, taskMap } from "./taskMap.js"

/**
 * The tasks to filter: every task, or those about a fact of a thread (its members' node ids, from
 * threadScope.ts, at most its bound), found from the facts through their ABOUT edges, so a thread's
 * list costs the thread's size. The fact node is unlabelled so FalkorDB seeks each id (currentState.ts).
 */
const candidates = (scoped: boolean, windowed: boolean, byHolder: boolean) =>
  scoped ?
    `UNWIND $members AS mid MATCH (f) WHERE id(f) = mid MATCH (t:Task)-[:ABOUT]->(f) WITH DISTINCT t ` :
    // Bare comparisons, never `$from IS NULL OR ...`: FalkorDB 4.16 plans that OR as a label scan.
    byHolder ?
    `MATCH (t:Task) WHERE t.holder = $claimedBy ` :
    `MATCH (t:Task) ${windowed ? "WHERE t.created_at >= $from AND t.created_at <= $to " : ""}`

const filtered = (scoped: boolean, windowed = false, byHolder = false) =>
  `${candidates(scoped, windowed, byHolder)}WITH t, ${shownStatus("t")} AS shown ` +
  `WHERE ($claimedBy IS NULL OR t.holder = $claimedBy) `

/**
 * A page newest first, keyset on (created_at, id). Windowed (unscoped only), it reads the
 * created_at index from `$from` to `$to`, so a page of a large board touches the window, not every
 * task (50,000 tasks: every list read and sorted them all, 50 ms).
 */
const pageQuery = (scoped: boolean, windowed: boolean, byHolder = false) =>
  `${filtered(scoped, windowed, byHolder)} AND ($status IS NULL OR shown = $status) ` +
  `AND ($afterAt IS NULL OR t.created_at < $afterAt OR (t.created_at = $afterAt AND t.id < $afterId)) ` +
  `WITH t ORDER BY t.created_at DESC, t.id DESC LIMIT $take ` +
  `RETURN ${taskMap("t")} AS task`

/** How many tasks of each status pass the other filters. */
const totalsQuery = (scoped: boolean, byHolder = false) =>
  `${filtered(scoped, false, byHolder)} RETURN shown AS status, count(t) AS n`

/**
 * The whole board's totals with no filter, from the status index, one status at a time, and the
 * claims whose lease ran out (shown as open) from the lease_until index: 50,000 tasks, 16 ms for
 * the grouped count over every task, 5 ms this way.
 */
const boardTotalsQuery = `UNWIND $statuses AS s MATCH (t:Task) WHERE t.status = s RETURN s AS status, count(t) AS n ` +
  `UNION ALL MATCH (t:Task) WHERE t.lease_until <= $now AND t.status = 'claimed' ` +
  `RETURN 'expired' AS status, count(t) AS n`

const queries = {
  all: { page: pageQuery(false, false), window: pageQuery(false, true), totals: totalsQuery(false) },
  thread: { page: pageQuery(true, false), totals: totalsQuery(true) },
  // One agent's tasks from the holder index: that agent's share of the board, not all of it.
  holder: { page: pageQuery(false, false, true), totals: totalsQuery(false, true) }
}

const TotalRow = Schema.Struct({ status: Schema.String, n: Schema.Number })

const firstSpan = 60 * 60 * 1000

export const list = Effect.fn("relay/tasks/list")(
  function*(db: GraphDatabase["Type"], now: number, r: TaskListRequest) {
    const members = r.thread === null ? null : yield* threadMembers(db, r.thread, null)
    const q = members !== null ? queries.thread : r.claimedBy !== null ? queries.holder : queries.all
    const params = { now, claimedBy: r.claimedBy, members }
    const board = members === null && r.claimedBy === null
    const totals = yield* (board
      ? db.read(boardTotalsQuery, { now, statuses: taskStatuses }, TotalRow)
      : db.read(q.totals, params, TotalRow))
    const counts = Object.fromEntries(taskStatuses.map((st) => [st, 0])) as Record<TaskStatus, number>
    for (const t of totals) counts[t.status as TaskStatus] = t.n
    if (board) {
      // A claim whose lease ran out reads as open (shownStatus).
      const expired = totals.find((t) => t.status === "expired")?.n ?? 0
      counts.claimed -= expired
      counts.open += expired
    }
    const eligible = r.status === null ? taskStatuses.reduce((sum, st) => sum + counts[st], 0) : counts[r.status]
    const read = (from: number | null) =>
      db.read(from === null ? q.page : queries.all.window, {
        ...params,
        status: r.status,
        afterAt: r.after?.[0] ?? null,
        afterId: r.after?.[1] ?? null,
        take: r.limit + 1,
        from,
        // A later page's window ends at its cursor: what is newer was shown already.
        to: r.after?.[0] ?? neverStale
      }, TaskColumn)
    // A page of the whole board that may not hold all it could show: an hour's window before its
    // anchor (now for a first page, the cursor's stamp for a later one) first, sixteen times wider
    // each time the page is not full, until the window reaches the epoch and reads all that is left.
    // Each read is a sixteenth of the next at most, so the reads cost about what the last one does.
    // A first page that holds its whole list reads everything once; a list of nothing, nothing.
    const anchor = r.after?.[0] ?? now
    const widening = (span: number): ReturnType<typeof read> =>
      anchor - span <= 0 ? read(null) : Effect.flatMap(
        read(anchor - span),
        (rows) => rows.length > r.limit ? Effect.succeed(rows) : widening(span * 16)
      )
    const rows = eligible === 0 ?
      [] :
      yield* (board && (r.after !== null || eligible > r.limit) ? widening(firstSpan) : read(null))
    return {
      tasks: rows.slice(0, r.limit).map((row) => row.task),
      more: rows.length > r.limit,
      totals: counts as TaskTotals
    }
  }
)
