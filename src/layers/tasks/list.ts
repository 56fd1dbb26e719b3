import { Effect, Schema } from "effect"
import { type TaskStatus, taskStatuses } from "../../domain/tasks.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { TaskListRequest, TaskTotals } from "../../services/TaskStore.js"
import { neverStale } from "../factStore/staleness.js"
import { threadMembers } from "../factStore/threadScope.js"
import { countsOf } from "./taskCounts.js"
import { byState, shownStatus, TaskColumn, taskMap, withState } from "./taskMap.js"

/**
 * Where a list's candidate tasks come from, each through an index so a list costs its share of the
 * board: the whole board (`all`), a window of created_at (`window`), one agent's tasks (`holder`),
 * the tasks stored with one status (`status`), or those about a fact of a thread (`thread`: its
 * members' node ids, from threadScope.ts, at most its bound, through their ABOUT edges; the fact
 * node is unlabelled so FalkorDB seeks each id, as currentState.ts does).
 */
const sources = ["all", "window", "holder", "status", "thread"] as const
type Source = typeof sources[number]

// Bare comparisons, never `$from IS NULL OR ...`: FalkorDB 4.16 plans that OR as a label scan.
const inWindow = `MATCH (t:Task) WHERE t.created_at >= $from AND t.created_at <= $to `
const candidates: Record<Source, string> = {
  all: `MATCH (t:Task) ${withState("t")}`,
  window: `${inWindow}${withState("t")}`,
  holder: byState("t", "t_s.holder = $claimedBy"),
  status: byState("t", "t_s.status = $status"),
  thread: `UNWIND $members AS mid MATCH (f) WHERE id(f) = mid MATCH (t:Task)-[:ABOUT]->(f) WITH DISTINCT t ` +
    withState("t")
}

const filtered = (source: Source) =>
  `${candidates[source]}WITH t, t_s, ${shownStatus("t_s")} AS shown ` +
  `WHERE ($claimedBy IS NULL OR t_s.holder = $claimedBy) `

/**
 * A page newest first, keyset on (created_at, id). A window reads the created_at index from `$from`
 * to `$to`, so a page of a large board touches the window, not every task (50,000 tasks: every list
 * read and sorted them all, 50 ms).
 */
const pageQuery = (source: Source) =>
  `${filtered(source)} AND ($status IS NULL OR shown = $status) ` +
  `AND ($afterAt IS NULL OR t.created_at < $afterAt OR (t.created_at = $afterAt AND t.id < $afterId)) ` +
  `WITH t, t_s ORDER BY t.created_at DESC, t.id DESC LIMIT $take ` +
  `RETURN ${taskMap("t")} AS task`

/** How many tasks of each status pass the other filters. */
const totalsQuery = (source: Source) => `${filtered(source)} RETURN shown AS status, count(t) AS n`

/**
 * The whole board's totals with no filter: the counters kept on write (taskCounts.ts), and the
 * claims whose lease ran out (shown as open) from the lease_until index. 50,000 tasks: 16 ms for a
 * grouped count over every task, 5 ms one status at a time through the status index, and now the
 * same as for 10 (bench:tasks).
 */
const boardTotalsQuery = `OPTIONAL MATCH (q:TaskQueue {key: 'queue'})-[qt:TALLY]->(q) ` +
  `WITH ${countsOf("qt")} AS counts ` +
  `OPTIONAL MATCH (t)-[t_s:STATE]->() WHERE t_s.lease_until <= $now AND t_s.status = 'claimed' ` +
  `RETURN counts, count(t) AS expired`

const BoardRow = Schema.Struct({ counts: Schema.Array(Schema.Number), expired: Schema.Number })

/**
 * A window's page of every status: its tasks sorted by their own stamp and cut before their STATE
 * edges are read, so each page reads the edges it shows, not every task of the window (1M facts,
 * 10,000 tasks a second apart, an hour's window: 9.9 ms with an edge for each, bench:tasks).
 */
const everyStatusPage = inWindow +
  `AND ($afterAt IS NULL OR t.created_at < $afterAt OR (t.created_at = $afterAt AND t.id < $afterId)) ` +
  `WITH t ORDER BY t.created_at DESC, t.id DESC LIMIT $take ${withState("t")}` +
  `RETURN ${taskMap("t")} AS task`

const pages = {
  ...Object.fromEntries(sources.map((source) => [source, pageQuery(source)])) as Record<Source, string>,
  everyStatus: everyStatusPage
}
const totals = { all: totalsQuery("all"), holder: totalsQuery("holder"), thread: totalsQuery("thread") }

/**
 * A status other than open (an expired claim reads as open) with at most this many tasks is read
 * from the status index and sorted whole, not through widening windows of the board: 50,000 tasks
 * of which the oldest 100 are done, 30 ms through the windows, 7.8 ms so (both over stdio, p50).
 */
const fewByStatus = 2000

const TotalRow = Schema.Struct({ status: Schema.String, n: Schema.Number })

const firstSpan = 60 * 60 * 1000

export const list = Effect.fn("relay/tasks/list")(
  function*(db: GraphDatabase["Type"], now: number, r: TaskListRequest) {
    const members = r.thread === null ? null : yield* threadMembers(db, r.thread, null)
    const source = members !== null ? "thread" : r.claimedBy !== null ? "holder" : "all"
    const params = { now, claimedBy: r.claimedBy, members }
    const board = members === null && r.claimedBy === null
    const counts = Object.fromEntries(taskStatuses.map((st) => [st, 0])) as Record<TaskStatus, number>
    if (board) {
      const row = (yield* db.read(boardTotalsQuery, { now }, BoardRow))[0]
      taskStatuses.forEach((st, i) => counts[st] = row?.counts[i] ?? 0)
      // A claim whose lease ran out reads as open (shownStatus).
      counts.claimed -= row?.expired ?? 0
      counts.open += row?.expired ?? 0
    } else {
      for (const t of yield* db.read(totals[source], params, TotalRow)) counts[t.status as TaskStatus] = t.n
    }
    const eligible = r.status === null ? taskStatuses.reduce((sum, st) => sum + counts[st], 0) : counts[r.status]
    const read = (from: keyof typeof pages, window: number | null = null) =>
      db.read(pages[from], {
        ...params,
        status: r.status,
        afterAt: r.after?.createdAt ?? null,
        afterId: r.after?.id ?? null,
        take: r.limit + 1,
        from: window,
        // A later page's window ends at its cursor: what is newer was shown already.
        to: r.after?.createdAt ?? neverStale
      }, TaskColumn)
    // A page of the whole board that may not hold all it could show: an hour's window before its
    // anchor (now for a first page, the cursor's stamp for a later one) first, sixteen times wider
    // each time the page is not full; past the epoch, the rest of the index before the anchor. A
    // first page holds more than a page (the totals say so), so its windows stop once one holds
    // them. A later page may be the last, whose windows never fill: only pages of every status take
    // them (each task in a window counts toward the page); a later page of one status reads its
    // list whole, once, as a list that fits one page does. A list of nothing reads nothing.
    const anchor = r.after?.createdAt ?? now
    const windowPage = r.status === null ? "everyStatus" : "window"
    const widening = (span: number): ReturnType<typeof read> =>
      anchor - span <= 0 ? read(windowPage, -neverStale) : Effect.flatMap(
        read(windowPage, anchor - span),
        (rows) => rows.length > r.limit ? Effect.succeed(rows) : widening(span * 16)
      )
    const byStatus = board && r.status !== null && r.status !== "open" && eligible <= fewByStatus
    const widens = board && eligible > r.limit && (r.after === null || r.status === null)
    const rows = eligible === 0
      ? []
      : yield* (byStatus ? read("status") : widens ? widening(firstSpan) : read(source))
    return {
      tasks: rows.slice(0, r.limit).map((row) => row.task),
      more: rows.length > r.limit,
      totals: counts as TaskTotals
    }
  }
)
