import { Effect, Schema } from "effect"
import { characterCount } from "../../domain/content.js"
import { IsoFromStamp } from "../../domain/time.js"
import type { SearchOptions, SearchRow } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { FactFromRow, factMap, stampOf, statusOf } from "./projection.js"

/**
 * The most matches one search looks at: the best `candidateWindow` by score (ties: newest first).
 * Filters, status and the cursor apply within them, so a rare writer or status never makes a search
 * walk the whole graph; a word found in more facts than this needs narrower words to reach the rest.
 */
export const candidateWindow = 1000

/**
 * The window of a first, cheaper try. Ranking the best 1,000 of thousands of matches is most of a
 * search's time (a top-1,000 sort against a top-44 one: about twice the time at 7,000 matches), and
 * with the default filters the best few matches fill a page. Matches are in one total order, so a
 * smaller window is a prefix of the larger one: if the page is full inside it, the page is exactly
 * what the full window gives. Only a short page (a far page, a status few facts have) pays a second
 * try; a writer or session filter, which most matches fail, goes to the full window at once.
 */
export const firstWindow = (o: SearchOptions) =>
  o.writtenBy === null && o.sessionId === null ? Math.min(candidateWindow, o.take * 4) : candidateWindow

/** How many decisions a hit carries each way, and how much of the other fact's text. */
const decisionsPerHit = 3
const otherTextLength = 160

/**
 * The full-text procedure yields every match in index order, unranked; the window ranks them by
 * score and node id (no property is read before the cut). The node id follows creation order (facts
 * are never deleted), so ties show newest first, and (score, id) is a total order: the keyset of
 * the cursor. The score is kept in thousandths: FalkorDB prints doubles to 15 digits, so a score
 * read back could not be compared exactly.
 * One sort only, then filters, status and LIMIT in that order: the plan streams from the sort, so
 * status is derived only until the page is full. (A second ORDER BY after the status filter made
 * FalkorDB 4.16 push `LIMIT $take` into that sort, ahead of the filter, and return short pages.)
 * Comprehension variables are named after `f` (see projection.ts on FalkorDB 4.16's binding).
 * As of a time, facts and decisions stamped after it are left out, but the text score is today's
 * (the index ranks by the words of every fact it holds now).
 */
export const searchQueryFor = (asOf: boolean) =>
  `CALL db.idx.fulltext.queryNodes('Fact', $query) YIELD node, score ` +
  `WITH node, toInteger(round(score * 1000)) AS k, ID(node) AS i ORDER BY k DESC, i DESC LIMIT $window ` +
  `WITH node AS f, k, i ` +
  `WHERE ($afterK IS NULL OR k < $afterK OR (k = $afterK AND i < $afterI)) ` +
  `AND ($writtenBy IS NULL OR f.written_by = $writtenBy) ` +
  `AND ($sessionId IS NULL OR f.session_id = $sessionId) ` +
  `AND ($since IS NULL OR f.created_at > $since) ` +
  `AND ($until IS NULL OR f.created_at <= $until) ` +
  `AND ($asOf IS NULL OR f.created_at <= $asOf) ` +
  `WITH f, k, i, ${factMap("f", asOf)} AS fact ` +
  `WHERE $statuses IS NULL OR ` +
  `${statusOf("fact")} IN $statuses ` +
  `WITH f, k, i, fact LIMIT $take ` +
  `RETURN fact, k, i, ` +
  `[(f_w)-[f_lost:SUPERSEDES]->(f) WHERE $asOf IS NULL OR f_lost.created_at <= $asOf | {id: f_w.id, content: f_w.content, reason: f_lost.reason, ` +
  `resolved_by: f_lost.resolved_by, created_at: f_lost.created_at}][..${decisionsPerHit}] AS lost, ` +
  `[(f)-[f_won:SUPERSEDES]->(f_l) WHERE $asOf IS NULL OR f_won.created_at <= $asOf | {id: f_l.id, content: f_l.content, reason: f_won.reason, ` +
  `resolved_by: f_won.resolved_by, created_at: f_won.created_at}][..${decisionsPerHit}] AS won`

export const searchQuery = searchQueryFor(false)
const searchAsOfQuery = searchQueryFor(true)

/** The other fact of a decision on a hit, and the decision. */
const DecisionRow = Schema.Struct({
  id: Schema.String,
  content: Schema.String,
  reason: Schema.String,
  resolved_by: Schema.String,
  created_at: IsoFromStamp
})
type DecisionRow = typeof DecisionRow.Type

const Row = Schema.Struct({
  fact: FactFromRow,
  k: Schema.Number,
  i: Schema.Number,
  lost: Schema.Array(DecisionRow),
  won: Schema.Array(DecisionRow)
})

/** Cut at whole code points, marked with an ellipsis. */
const short = (text: string): string =>
  characterCount(text) <= otherTextLength ? text : `${[...text].slice(0, otherTextLength - 1).join("")}…`

const byTime = (a: DecisionRow, b: DecisionRow) => stampOf(a) - stampOf(b)

/** What a hit's decision says whichever side the hit was on. */
const decided = (d: DecisionRow) => ({ reason: d.reason, resolved_by: d.resolved_by, created_at: d.created_at })

const readWindow = (db: GraphDatabase["Type"], o: SearchOptions, window: number) =>
  db.read(o.asOf == null ? searchQuery : searchAsOfQuery, {
    query: o.query,
    window,
    afterK: o.after?.[0] ?? null,
    afterI: o.after?.[1] ?? null,
    writtenBy: o.writtenBy,
    sessionId: o.sessionId,
    since: o.since,
    until: o.until,
    asOf: o.asOf ?? null,
    statuses: o.statuses,
    take: o.take
  }, Row)

export const search = (db: GraphDatabase["Type"], o: SearchOptions) =>
  readWindow(db, o, firstWindow(o)).pipe(
    Effect.flatMap((rows) =>
      rows.length >= o.take || firstWindow(o) >= candidateWindow
        ? Effect.succeed(rows)
        : readWindow(db, o, candidateWindow)
    ),
    Effect.map((rows) =>
      rows.map((r): SearchRow => ({
        key: [r.k, r.i],
        hit: {
          fact: r.fact,
          score: r.k / 1000,
          superseded_by: [...r.lost].sort(byTime).map((d) => ({
            winner_id: d.id,
            winner_content: short(d.content),
            ...decided(d)
          })),
          supersedes: [...r.won].sort(byTime).map((d) => ({
            loser_id: d.id,
            loser_content: short(d.content),
            ...decided(d)
          }))
        }
      }))
    )
  )
