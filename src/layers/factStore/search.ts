import { Effect, Schema } from "effect"
import type { DatabaseError } from "../../domain/errors.js"
import { searchPlan } from "../../domain/search.js"
import type { SearchKey, SearchOptions, SearchRow, SearchTier } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { DecisionRow, lostComprehension, lostTo, wonComprehension, wonOver } from "./decisionSides.js"
import { allItemsIn, anyItemIn, bm25Of, contextScore, heldWeightOf, termWeights } from "./matching.js"
import { narrowFirst } from "./narrowFirst.js"
import { FactFromRow, factMapWith, statusCase, statusFlagExprs } from "./projection.js"
import { threadMembers } from "./threadScope.js"

/**
 * The most matches one search ranks: the best `candidateWindow` by score (ties: newest first) of the
 * matches that pass the filters on the fact's own fields (writer, session, time, as_of). Status,
 * which comes from edges, and the cursor apply within them, so a status few facts have never makes
 * a search walk the whole graph, and which hits a status finds does not depend on the page size.
 */
export const candidateWindow = 1000

/**
 * The filters on a match's own fields, only those asked for, applied as the procedure yields each
 * match, before the ranking: they hold over every match, not just the best 1,000 (a writer whose
 * facts all rank past the 1,000th is found). The price is one property read a match (about 1 ms
 * at 7,000 matches), partly paid back by the matches the sort no longer sees. Values are
 * parameters; only which filters are present varies the text.
 */
const fieldConditions = (o: SearchOptions): Array<string> =>
  [
    o.writtenBy !== null && "node.written_by = $writtenBy",
    o.sessionId !== null && "node.session_id = $sessionId",
    o.since !== null && "node.created_at > $since",
    o.until !== null && "node.created_at <= $until",
    o.asOf != null && "node.created_at <= $asOf",
    o.kind != null && "node.kind = $kind"
  ].filter((f): f is string => f !== false)

const fieldFilters = (o: SearchOptions): string => {
  const present = fieldConditions(o)
  return present.length === 0 ? "" : `WITH node, score WHERE ${present.join(" AND ")} `
}

/**
 * The full-text procedure yields every match in index order, unranked; the window ranks them by
 * score and node id (no property is read before the cut but those the filters name). The node id
 * follows creation order (facts are never deleted), so ties show newest first, and (score, id) is
 * a total order: the keyset of the cursor. Ranking by the score itself, not a value computed from
 * it, spares an expression per match (about 0.5 ms at 7,000 matches), and so does ordering by the
 * node, which FalkorDB compares by id, with `ID()` taken only for the window (about 0.3 ms; the
 * paging tests split ties across pages, so an engine that ordered nodes otherwise fails them).
 * One sort only, then the cursor, status and LIMIT in that order: the window is collected (to
 * count it, `n`) and unwound in its order, so status is derived only until the page is full, and a
 * fact's parent and decisions only for the page. The cursor sits behind a WITH of its own: FalkorDB
 * 4.16 moves a WHERE on the WITH right after `ORDER BY ... LIMIT` below the sort, which put the
 * cursor ahead of the window (pages went on past the 1,000th match, and which hits a status found
 * depended on the page size). (A second ORDER BY after the status filter made FalkorDB 4.16 push
 * `LIMIT $take` into that sort, ahead of the filter, and return short pages.)
 * Each comprehension is a sub-plan run for every row, so the decisions a fact lost are read only
 * when the asked statuses can have them: a fact that lost one is superseded (or retracted, which
 * comes first).
 * Comprehension variables are named after `f` (see projection.ts on FalkorDB 4.16's binding).
 * As of a time, facts and decisions stamped after it are left out, but the text score is today's
 * (the index ranks by the words of every fact it holds now).
 */
export const searchQueryFor = (o: SearchOptions) =>
  `CALL db.idx.fulltext.queryNodes('Fact', $query) YIELD node, score ` +
  fieldFilters(o) +
  `WITH node, score ORDER BY score DESC, node DESC LIMIT $window ` +
  pageOf(o)

/**
 * Any-word matches that are not every-word matches (by the fact's stored terms, see matching.ts),
 * the engine's best `candidateWindow` of them (its score favours facts with more of the words),
 * ranked by Relay's BM25 with what each builds on weighed in (contextScore), then newest first.
 */
export const anyWordQueryFor = (o: SearchOptions) =>
  `CALL db.idx.fulltext.queryNodes('Fact', $query) YIELD node, score ` +
  fieldFilters(o) +
  `WITH node, score ORDER BY score DESC, node DESC LIMIT $window ` +
  `WITH node, coalesce(node.terms, []) AS ts WHERE NOT ${allItemsIn("ts")} ` +
  contextScore("node", "ts") + `ORDER BY score DESC, node DESC ` +
  pageOf(o)

/**
 * Within a thread (its node ids, at most threadScope's bound), matched by the facts' stored terms:
 * every item there (`all`), or some item but not every one (`any`); ranked by BM25, then newest first.
 */
export const threadSearchQueryFor = (o: SearchOptions, tier: SearchTier) => {
  const own = fieldConditions(o)
  return `UNWIND $thread AS tid MATCH (node) WHERE id(node) = tid ` +
    `WITH node, coalesce(node.terms, []) AS ts WHERE ${
      [...own, tier === "all" ? allItemsIn("ts") : `${anyItemIn("ts")} AND NOT ${allItemsIn("ts")}`].join(" AND ")
    } ` +
    (tier === "all" ? `WITH node, ${bm25Of("ts")} AS score ` : contextScore("node", "ts")) +
    `ORDER BY score DESC, node DESC LIMIT $window ` +
    pageOf(o)
}

/** The window (ordered rows of `node`, `score`) collected and cut to a page: see searchQueryFor's comment. */
const pageOf = (o: SearchOptions) => {
  const flags = statusFlagExprs("f", o.asOf != null)
  const named = { superseded: "f_superseded", retracted: "f_retracted", stale: "f_stale" }
  const mayHaveLost = o.statuses === null || o.statuses.some((s) => s === "superseded" || s === "retracted")
  return `WITH collect([node, score]) AS win UNWIND win AS c ` +
    `WITH c[0] AS f, c[1] AS score, ID(c[0]) AS i, size(win) AS n ` +
    (o.after === null ? "" : `WITH f, score, i, n WHERE score < $afterLow OR (score <= $afterHigh AND i < $afterI) `) +
    `WITH f, score, i, n, ${flags.superseded} AS ${named.superseded}, ${flags.retracted} AS ${named.retracted}, ` +
    `${flags.stale} AS ${named.stale} ` +
    `WHERE $statuses IS NULL OR ${statusCase(named)} IN $statuses ` +
    `WITH f, score, i, n, ${named.superseded}, ${named.retracted}, ${named.stale} LIMIT $take ` +
    `RETURN ${factMapWith("f", named)} AS fact, score, i, n, f.kind AS kind, ` +
    // The query's idf weight the fact holds (its terms, matching.ts): how sure an any-word hit is.
    `${heldWeightOf("coalesce(f.terms, [])", "m")} AS matched, ` +
    `${mayHaveLost ? lostComprehension("f") : "[]"} AS lost, ${wonComprehension("f")} AS won`
}

/**
 * Where a page ends, as the bounds the next page's WHERE compares scores with. FalkorDB prints a
 * double to 15 significant digits, so the score read back (and kept in the cursor) is near the
 * engine's, not always equal: 1/3 reads back as 0.333333333333333. The engine's scores are sums of
 * whole term counts times whole inverse document frequencies over a fact's highest term count, so
 * two different scores differ by far more than a millionth of a millionth: every score within that
 * of the cursor's is the last hit's own, and the node id orders it.
 */
const afterBounds = (after: SearchKey | null) => {
  if (after === null) return { afterLow: null, afterHigh: null, afterI: null }
  return { afterLow: after.score * (1 - 1e-12), afterHigh: after.score * (1 + 1e-12), afterI: after.node }
}

const Row = Schema.Struct({
  fact: FactFromRow,
  score: Schema.Number,
  i: Schema.Number,
  /** How many matches the window held: fewer than it takes means it held them all. */
  n: Schema.Number,
  lost: Schema.Array(DecisionRow),
  won: Schema.Array(DecisionRow),
  matched: Schema.Number,
  kind: Schema.NullOr(Schema.String)
})

/**
 * Rows as hits. An every-word match holds every item, so it is strong; an any-word match is weak
 * when the query terms it holds carry less than `weakShare` of the query's idf weight (`total`).
 */
const toRows = (tier: SearchTier, total = 0) => (rows: ReadonlyArray<typeof Row.Type>) =>
  rows.map((r): SearchRow => ({
    key: { score: r.score, node: r.i, tier },
    hit: {
      fact: r.fact,
      score: Math.round(r.score * 1000) / 1000,
      superseded_by: r.lost.map(lostTo),
      supersedes: r.won.map(wonOver),
      ...(tier === "any" && total > 0 && r.matched < weakShare * total ? { weak: true } : {}),
      ...(r.kind === "warning" || r.kind === "procedure" ? { kind: r.kind } : {})
    }
  }))

/** The parameters of the filters and the page (fieldFilters, pageOf). */
const filterParams = (o: SearchOptions, take: number) => ({
  writtenBy: o.writtenBy,
  sessionId: o.sessionId,
  since: o.since,
  until: o.until,
  asOf: o.asOf ?? null,
  kind: o.kind ?? null,
  statuses: o.statuses,
  take
})

/** Below this share of the query's idf weight, an any-word hit is weak (issue 41). */
export const weakShare = 0.5

/**
 * Every-word matches first (the engine's, ranked by its score as before; in a thread, by BM25), and
 * when they leave the page short, any-word matches (BM25, then newest): a cursor inside the
 * any-word matches (a key of tier `any`) skips the every-word ones.
 */
export const search = Effect.fn("relay/factStore/search")(function*(db: GraphDatabase["Type"], o: SearchOptions) {
  const plan = searchPlan(o.query)
  const thread = o.thread == null ? null : yield* threadMembers(db, o.thread, o.asOf ?? null)
  const inAny = o.after?.tier === "any"
  // BM25's weights only for the reads that rank by it: an every-word search whose page is full
  // outside a thread makes no extra read.
  const noWeights = { q: [] as ReadonlyArray<readonly [string, number]>, avgdl: 1 }
  const weigh = () => plan.terms.length > 0 ? termWeights(db, plan.terms) : Effect.succeed(noWeights)
  let weights = thread !== null ? yield* weigh() : noWeights
  const params = (query: string, after: SearchKey | null, take: number) => ({
    query,
    ...afterBounds(after),
    ...filterParams(o, take),
    items: plan.items,
    q: weights.q,
    avgdl: weights.avgdl,
    thread
  })
  const everyWord = (): Effect.Effect<ReadonlyArray<SearchRow>, DatabaseError> => {
    if (inAny) return Effect.succeed([])
    if (thread !== null) {
      return db.read(threadSearchQueryFor({ ...o }, "all"), {
        ...params(plan.all, o.after, o.take),
        window: candidateWindow
      }, Row).pipe(Effect.map(toRows("all")))
    }
    const cypher = searchQueryFor(o)
    // narrowFirst: ranking the best 1,000 of thousands of matches is most of a search's time (a
    // top-1,000 sort against a top-44 one: about twice the time at 7,000 matches).
    return narrowFirst(
      o.take,
      candidateWindow,
      (window) => db.read(cypher, { ...params(plan.all, o.after, o.take), window }, Row)
    ).pipe(Effect.map(toRows("all")))
  }
  const first = yield* everyWord()
  const left = o.take - first.length
  if (left <= 0 || plan.items.length < 2) return first
  if (thread === null) weights = yield* weigh()
  const after = inAny ? o.after : null
  const anyOptions = { ...o, after }
  const cypher = thread !== null ? threadSearchQueryFor(anyOptions, "any") : anyWordQueryFor(anyOptions)
  const rest = yield* db.read(cypher, { ...params(plan.any ?? plan.all, after, left), window: candidateWindow }, Row)
  const total = weights.q.reduce((sum, [, w]) => sum + w, 0)
  return [...first, ...toRows("any", total)(rest)]
})

/** How many nearest neighbours a vector search asks the index for: the filters and the page apply to them. */
export const vectorWindow = (take: number) => Math.min(candidateWindow, Math.max(50, take * 5))

/**
 * The facts nearest the query's vector (vectors.ts), by cosine similarity, with the search's own
 * filters (fields, thread, status) applied to the index's `vectorWindow` nearest: a filter that
 * leaves few of those finds few. A hit is weak below RELAY_EMBEDDINGS_STRONG (`strong`).
 */
export const vectorQueryFor = (o: SearchOptions) =>
  `CALL db.idx.vector.queryNodes('Fact', 'embedding', $k, vecf32($vector)) YIELD node, score ` +
  `WITH node, 1 - score AS score ${o.thread == null ? "" : "WHERE id(node) IN $thread "}` +
  fieldFilters(o) +
  `WITH node, score ORDER BY score DESC, node DESC LIMIT $window ` +
  pageOf({ ...o, after: null })

export const vectorSearch = Effect.fn("relay/factStore/vectorSearch")(function*(
  db: GraphDatabase["Type"],
  o: SearchOptions,
  vector: ReadonlyArray<number>,
  strong: number
) {
  const thread = o.thread == null ? null : yield* threadMembers(db, o.thread, o.asOf ?? null)
  const rows = yield* db.read(vectorQueryFor(o), {
    vector: [...vector],
    k: vectorWindow(o.take),
    window: candidateWindow,
    ...filterParams(o, o.take),
    q: [],
    thread
  }, Row)
  return rows.map((r): SearchRow => ({
    key: { score: r.score, node: r.i, tier: "all" },
    hit: {
      fact: r.fact,
      score: Math.round(r.score * 1000) / 1000,
      superseded_by: r.lost.map(lostTo),
      supersedes: r.won.map(wonOver),
      ...(r.score < strong ? { weak: true } : {}),
      ...(r.kind === "warning" || r.kind === "procedure" ? { kind: r.kind } : {})
    }
  }))
})

/**
 * How many facts match a search's words (any of them) and its own-field filters, whatever their
 * status, up to `cap`: a search that shows fewer says how many its status filter left out (issue 41).
 * Outside a thread only (a thread's matches are its members'); null there.
 */
export const matchCount = Effect.fn("relay/factStore/matchCount")(
  function*(db: GraphDatabase["Type"], o: SearchOptions, cap: number) {
    if (o.thread != null) return null
    const plan = searchPlan(o.query)
    const rows = yield* db.read(
      `CALL db.idx.fulltext.queryNodes('Fact', $query) YIELD node, score ${fieldFilters(o)}` +
        `WITH node LIMIT $cap RETURN count(node) AS n`,
      {
        query: plan.any ?? plan.all,
        writtenBy: o.writtenBy,
        sessionId: o.sessionId,
        since: o.since,
        until: o.until,
        asOf: o.asOf ?? null,
        cap
      },
      Schema.Struct({ n: Schema.Number })
    )
    return rows[0]?.n ?? 0
  }
)
