import { Effect, Ref, Schema } from "effect"

import { type DatabaseError, type FactNotFound, type InvalidInput } from "../../domain/errors.js"
import type { Fact } from "../../domain/fact.js"
import { currentBudget, leftOutCap, page } from "../../domain/paging.js"
import type { CurrentStateOptions, Page } from "../../services/FactStore.js"
import type { CypherParams, GraphDatabase } from "../../services/GraphDatabase.js"
import { clockRead } from "../database/clock.js"
import { narrowFirst } from "./narrowFirst.js"
import { FactFromRow, factMap, stampOf, statusOf } from "./projection.js"
import { neverStale, staleAt } from "./staleness.js"
import { threadMembers } from "./threadScope.js"

/**
 * The newest facts of a window, filtered by writer and status before the LIMIT so a page is exact:
 * a sort, then the status, then LIMIT, so the status is derived only until the page is full.
 * The sort keeps the newest `$sorted` only (a top-k sort: FalkorDB then holds that many records,
 * not the window's every fact, which cost ~10 ms for the 3,500 facts of a busy day at 100k); when
 * that leaves the page short, the caller reads again with no cut (`narrowFirst`). The sort's own
 * LIMIT and the collect() after it both stand between the sort and the final `LIMIT $limit`:
 * with neither, FalkorDB 4.16 pushes that LIMIT into the sort, ahead of the status filter (a page
 * of active facts came back empty when the newest facts were stale, test/tools/status.test.ts).
 * The collect() also counts the sorted facts (`n`), unwound in their order as search does: fewer
 * than `$sorted` means the sort held the whole window.
 */
const recentQuery = (filter: "session" | "since", asOf: boolean) =>
  `${filter === "since" ? sinceAnchor : ""}` +
  `MATCH (f:Fact) WHERE ${
    filter === "session" ? "f.session_id = $sessionId AND " : "f.created_at >= anchor - $window AND "
  }` +
  `f.created_at < $before AND ($writtenBy IS NULL OR f.written_by = $writtenBy) AND ${notStaleBy("f")} ` +
  `WITH f ORDER BY f.created_at DESC LIMIT $sorted ` +
  `WITH collect(f) AS win UNWIND win AS f ` +
  `WITH f, size(win) AS n, ${factMap("f", asOf)} AS fact WHERE $statuses IS NULL OR ${statusOf("fact")} IN $statuses ` +
  `WITH fact, n LIMIT $limit RETURN fact, n`

/**
 * The newest facts of a thread (its node ids, at most threadScope's bound), each found by its id:
 * the cost is the thread's size, whatever the memory's. The node is unlabelled on purpose: with
 * `:Fact`, FalkorDB 4.16 scanned the created_at index for every id instead of seeking it, even with
 * the stamp's test behind a WITH (39 million records, 17 s, for a thread of 3,000 in 13,000 facts).
 */
const threadRecentQuery = (asOf: boolean) =>
  `UNWIND $thread AS tid MATCH (f) WHERE id(f) = tid AND f.created_at < $before ` +
  `AND ($writtenBy IS NULL OR f.written_by = $writtenBy) AND ($sessionId IS NULL OR f.session_id = $sessionId) ` +
  `AND ${notStaleBy("f")} ` +
  `WITH f ORDER BY f.created_at DESC ` +
  `WITH collect(f) AS win UNWIND win AS f ` +
  `WITH f, size(win) AS n, ${factMap("f", asOf)} AS fact WHERE $statuses IS NULL OR ${statusOf("fact")} IN $statuses ` +
  `WITH fact, n LIMIT $limit RETURN fact, n`

/**
 * Active only (the default): a stale fact is never active, and staleness is one stored property
 * (staleness.ts), so it is left out before the sort. A window whose newest facts are mostly stale
 * (a retracted thread) then sorts only what can be shown: on a 20,000-deep chain whose newest 15,000
 * facts are stale 88 -> 35 ms end to end, and 267 -> 78 ms once all of it is.
 */
const notStaleBy = (f: string) => `($freshBy IS NULL OR ${staleAt(f)} > $freshBy)`

/** The prefilter's stamp: as of `asOf` (or now) when only active facts are asked for, else none. */
const freshBy = (statuses: ReadonlyArray<string> | null, asOf: number | null) =>
  statuses !== null && statuses.length === 1 && statuses[0] === "active" ? (asOf ?? neverStale - 1) : null

const Row = Schema.Struct({ fact: FactFromRow, n: Schema.Number })

const minute = 60 * 1000

/**
 * Windows tried for the newest facts before `before`, each ending at `anchor`: the earlier of
 * `$top` (now, the cursor or as_of) and the graph's last stamp, so a memory last written a week ago
 * finds its newest facts in the first window as a busy one does. FalkorDB 4.16 sorts every match
 * for ORDER BY ... LIMIT; a lower bound on created_at goes through the index, so the first window
 * should hold a page and not much more. How wide that is depends on how fast the memory is written:
 * an hour held ~1,500 facts to sort in the 1M bench (a 4 ms statement), and a handful in a memory
 * written a few times a day. So the first window is learned per graph (`spacing`) from the last
 * read's own count; until then, and never wider than it, an hour. When a window holds more than
 * `limit` matching facts, the newest `limit` + 1 are all in it; otherwise widen 24 times, then 32
 * times more, and at last take everything. Whichever window answers, the page is the same.
 */
const firstWindow = 60 * minute
const narrowest = minute
const widen = [24, 32 * 24]

/**
 * Per graph: ms between two facts a default read matched, from its last count (none yet: undefined).
 * Made by the FactStore that owns the graph (FactStoreLive.ts).
 */
export type LearnedSpacing = Ref.Ref<number | undefined>

/**
 * What a read of `window` ms that matched `n` facts (`sorted` at most: then there were more) says of
 * the graph's spacing; nothing when it matched none (an idle hour says little of the memory).
 */
const learn = (spacing: LearnedSpacing, window: number, n: number) =>
  n > 0 && window < Number.MAX_SAFE_INTEGER ? Ref.set(spacing, window / n) : Effect.void

/**
 * The first window: two pages' worth of the learned spacing, between a minute and an hour. (A
 * window the read's top-k cut filled, four pages, halves the next one: the spacing is then a bound.)
 */
const firstFor = (s: number | undefined, take: number): number =>
  s === undefined ? firstWindow : Math.min(firstWindow, Math.max(narrowest, Math.ceil(s * take * 2)))

/** Binds `anchor` (see windows) from the clock, read in the same statement. */
const sinceAnchor = `${
  clockRead([])
}WITH CASE WHEN clk.last IS NOT NULL AND clk.last < $top THEN clk.last ELSE $top END AS anchor `

/**
 * How many facts of the page's span (from its oldest fact, or the start of the memory on a last
 * page, to where it started) a status filter left out: an assistant told "current beliefs" is told
 * that stale or superseded ones were passed over, and how to see them (issue 41). Counted through
 * the created_at index (a thread's members by id) and stopped at `leftOutCap`, so the count costs
 * at most that many index entries.
 */
const spanCountQuery = `MATCH (f:Fact) WHERE f.created_at >= $from AND f.created_at < $before ` +
  `AND ($writtenBy IS NULL OR f.written_by = $writtenBy) AND ($sessionId IS NULL OR f.session_id = $sessionId) ` +
  `WITH f LIMIT $cap RETURN count(f) AS n`
const threadSpanCountQuery = `UNWIND $thread AS tid MATCH (f) WHERE id(f) = tid AND f.created_at >= $from ` +
  `AND f.created_at < $before AND ($writtenBy IS NULL OR f.written_by = $writtenBy) ` +
  `AND ($sessionId IS NULL OR f.session_id = $sessionId) WITH f LIMIT $cap RETURN count(f) AS n`
const CountRow = Schema.Struct({ n: Schema.Number })

/** One page of the newest facts (optionally of one session, writer or statuses) older than `before`, newest first. */
export const currentState = (
  db: GraphDatabase["Type"],
  spacing: LearnedSpacing,
  now: number,
  options: CurrentStateOptions
): Effect.Effect<Page<Fact>, FactNotFound | InvalidInput | DatabaseError> => {
  const { limit, sessionId } = options
  const asOf = options.asOf ?? null
  // As of a time: nothing stamped after it (before is exclusive, stamps are whole milliseconds).
  const before = Math.min(options.before ?? Number.MAX_SAFE_INTEGER, asOf === null ? Number.MAX_SAFE_INTEGER : asOf + 1)
  const top = Math.min(options.before ?? now, asOf ?? Number.MAX_SAFE_INTEGER)
  const statuses = options.statuses ?? null
  const filters = { writtenBy: options.writtenBy ?? null, statuses, asOf, freshBy: freshBy(statuses, asOf) }
  const read = ([rows, budget]: readonly [ReadonlyArray<{ readonly fact: Fact }>, number]): Page<Fact> =>
    page(rows.map((r) => r.fact), limit, (f) => [stampOf(f)], budget)
  const sortedRead = (query: string, params: CypherParams) =>
    narrowFirst(
      limit + 1,
      Number.MAX_SAFE_INTEGER,
      (sorted) => db.read(query, { ...params, limit: limit + 1, sorted, ...filters }, Row)
    )
  const attempt = (
    windows: ReadonlyArray<number>,
    i: number
  ): Effect.Effect<ReadonlyArray<{ readonly fact: Fact }>, DatabaseError> => {
    const window = windows[i]!
    return sortedRead(recentQuery("since", asOf !== null), { top, window, before }).pipe(
      Effect.tap((rows) => i === 0 && rows[0] !== undefined ? learn(spacing, window, rows[0].n) : Effect.void),
      Effect.flatMap((rows) =>
        rows.length > limit || i === windows.length - 1 ? Effect.succeed(rows) : attempt(windows, i + 1)
      )
    )
  }
  const recent = Effect.flatMap(Ref.get(spacing), (s) => {
    const first = firstFor(s, limit + 1)
    return attempt([first, ...widen.map((k) => first * k), Number.MAX_SAFE_INTEGER], 0)
  })
  const thread = options.thread ?? null
  const members = thread === null ? Effect.succeed(null) : threadMembers(db, thread, asOf)
  return Effect.flatMap(members, (members) => {
    const rows: Effect.Effect<ReadonlyArray<{ readonly fact: Fact }>, DatabaseError> = members !== null
      ? db.read(threadRecentQuery(asOf !== null), {
        thread: members,
        before,
        sessionId,
        limit: limit + 1,
        ...filters
      }, Row)
      : sessionId !== null
      ? sortedRead(recentQuery("session", asOf !== null), { sessionId, before })
      : recent
    return Effect.flatMap(Effect.zip(rows, currentBudget()), (fetched) => {
      const found = read(fetched)
      if (statuses === null) return Effect.succeed(found)
      const last = found.next_cursor === null ? undefined : found.items.at(-1)
      const params = {
        from: last === undefined ? -neverStale : stampOf(last),
        before,
        writtenBy: filters.writtenBy,
        sessionId,
        cap: leftOutCap + found.items.length,
        thread: members
      }
      return Effect.map(
        db.read(members !== null ? threadSpanCountQuery : spanCountQuery, params, CountRow),
        (counted): Page<Fact> => ({ ...found, left_out: Math.max(0, (counted[0]?.n ?? 0) - found.items.length) })
      )
    })
  })
}
