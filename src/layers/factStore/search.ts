import { Effect, Schema } from "effect"
import type { SearchOptions, SearchRow } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { byTime, DecisionRow, decisionsPerFact, lostComprehension, lostTo, wonOver } from "./decisionSides.js"
import { FactFromRow, factMap, statusOf } from "./projection.js"

/**
 * The most matches one search ranks: the best `candidateWindow` by score (ties: newest first) of the
 * matches that pass the filters on the fact's own fields (writer, session, time, as_of). Status,
 * which comes from edges, and the cursor apply within them, so a status few facts have never makes
 * a search walk the whole graph, and which hits a status finds does not depend on the page size.
 */
export const candidateWindow = 1000

/**
 * The window of a first, cheaper try. Ranking the best 1,000 of thousands of matches is most of a
 * search's time (a top-1,000 sort against a top-44 one: about twice the time at 7,000 matches), and
 * the best few matches mostly have the asked status. Matches are in one total order, so a smaller
 * window is a prefix of the larger one: if the page is full inside it, the page is exactly what the
 * full window gives. Only a short page (a far page, a status few matches have) pays a second try.
 */
export const firstWindow = (o: SearchOptions) => Math.min(candidateWindow, o.take * 4)

/**
 * The filters on a match's own fields, only those asked for, applied as the procedure yields each
 * match, before the ranking: they hold over every match, not just the best 1,000 (a writer whose
 * facts all rank past the 1,000th is found). The price is one property read a match (about 1 ms
 * at 7,000 matches), partly paid back by the matches the sort no longer sees. Values are
 * parameters; only which filters are present varies the text.
 */
const fieldFilters = (o: SearchOptions): string => {
  const present = [
    o.writtenBy !== null && "node.written_by = $writtenBy",
    o.sessionId !== null && "node.session_id = $sessionId",
    o.since !== null && "node.created_at > $since",
    o.until !== null && "node.created_at <= $until",
    o.asOf != null && "node.created_at <= $asOf"
  ].filter((f): f is string => f !== false)
  return present.length === 0 ? "" : `WITH node, score WHERE ${present.join(" AND ")} `
}

/**
 * The full-text procedure yields every match in index order, unranked; the window ranks them by
 * score and node id (no property is read before the cut but those the filters name). The node id
 * follows creation order (facts are never deleted), so ties show newest first, and (score, id) is
 * a total order: the keyset of the cursor. The score is kept in thousandths: FalkorDB prints
 * doubles to 15 digits, so a score read back could not be compared exactly.
 * One sort only, then the cursor, status and LIMIT in that order: the plan streams from the sort,
 * so status is derived only until the page is full. The cursor sits behind a WITH of its own:
 * FalkorDB 4.16 moves a WHERE on the WITH right after `ORDER BY ... LIMIT` below the sort, which put
 * the cursor ahead of the window (pages went on past the 1,000th match, and which hits a status
 * found depended on the page size). (A second ORDER BY after the status filter
 * made FalkorDB 4.16 push `LIMIT $take` into that sort, ahead of the filter, and return short pages.)
 * Comprehension variables are named after `f` (see projection.ts on FalkorDB 4.16's binding).
 * As of a time, facts and decisions stamped after it are left out, but the text score is today's
 * (the index ranks by the words of every fact it holds now).
 */
export const searchQueryFor = (o: SearchOptions) =>
  `CALL db.idx.fulltext.queryNodes('Fact', $query) YIELD node, score ` +
  fieldFilters(o) +
  `WITH node, toInteger(round(score * 1000)) AS k, ID(node) AS i ORDER BY k DESC, i DESC LIMIT $window ` +
  `WITH node AS f, k, i ` +
  (o.after === null ? "" : `WITH f, k, i WHERE k < $afterK OR (k = $afterK AND i < $afterI) `) +
  `WITH f, k, i, ${factMap("f", o.asOf != null)} AS fact ` +
  `WHERE $statuses IS NULL OR ` +
  `${statusOf("fact")} IN $statuses ` +
  `WITH f, k, i, fact LIMIT $take ` +
  `RETURN fact, k, i, ${lostComprehension("f")} AS lost, ` +
  `[(f)-[f_won:SUPERSEDES]->(f_l) WHERE $asOf IS NULL OR f_won.created_at <= $asOf | {id: f_l.id, content: f_l.content, reason: f_won.reason, ` +
  `resolved_by: f_won.resolved_by, created_at: f_won.created_at}][..${decisionsPerFact}] AS won`

const Row = Schema.Struct({
  fact: FactFromRow,
  k: Schema.Number,
  i: Schema.Number,
  lost: Schema.Array(DecisionRow),
  won: Schema.Array(DecisionRow)
})

export const search = (db: GraphDatabase["Type"], o: SearchOptions) => {
  const cypher = searchQueryFor(o)
  const first = firstWindow(o)
  const readWindow = (window: number) =>
    db.read(cypher, {
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
  return readWindow(first).pipe(
    Effect.flatMap((rows) =>
      rows.length >= o.take || first >= candidateWindow ? Effect.succeed(rows) : readWindow(candidateWindow)
    ),
    Effect.map((rows) =>
      rows.map((r): SearchRow => ({
        key: [r.k, r.i],
        hit: {
          fact: r.fact,
          score: r.k / 1000,
          superseded_by: [...r.lost].sort(byTime).map(lostTo),
          supersedes: [...r.won].sort(byTime).map(wonOver)
        }
      }))
    )
  )
}
