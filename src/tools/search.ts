import { Effect } from "effect"
import { InvalidInput } from "../domain/errors.js"
import { filterStatuses } from "../domain/fact.js"
import { SearchInput } from "../domain/inputs.js"
import { type SearchHit, SearchOutput } from "../domain/outputs.js"
import { currentBudget, cursorOf, isWhole, leftOutCap, page, placeCursor } from "../domain/paging.js"
import { FactStore, type SearchKey, type SearchRow } from "../services/FactStore.js"
import { renderSearch } from "./render/reads.js"
import { defineTool, readOnly } from "./Tool.js"

/**
 * The engine's scores are 0 or between these (20 at most on the 100k bench graph; a query has at
 * most 16 terms). Outside them is no cursor Relay made, and FalkorDB refuses the extremes as query
 * parameters (a bound past the largest double is Infinity, a subnormal one a float overflow).
 */
const scoreRange = [1e-300, 1e9] as const

/** A score the engine or BM25 can give. */
const isScore = (v: string | number): v is number =>
  typeof v === "number" && (v === 0 || (v >= scoreRange[0] && v <= scoreRange[1]))

/** On the wire an every-word hit's place is [score, node id], an any-word hit's the same and 1. */
const EveryWord = placeCursor({ score: isScore, node: isWhole })
const AnyWord = placeCursor({ score: isScore, node: isWhole, anyWord: (v): v is 1 => v === 1 })

/** relay_search's cursor: the last hit shown, by its SearchKey. */
export const SearchCursor = cursorOf(
  (key): SearchKey | null => {
    const at = key.length === 3 ? AnyWord.read(key) : EveryWord.read(key)
    return at === null ? null : { score: at.score, node: at.node, tier: "anyWord" in at ? "any" : "all" }
  },
  (at: SearchKey) => at.tier === "any" ? AnyWord.wire({ ...at, anyWord: 1 }) : EveryWord.wire(at)
)

/**
 * A page of rows, each costed by its hit (what the reply holds; the key is the cursor's, which the
 * reply frame covers), with the cursor after the last kept.
 */
const pageOfRows = (rows: ReadonlyArray<SearchRow>, limit: number, budget: number) => {
  const keys = new Map(rows.map((r) => [r.hit, r.key]))
  const cut = page(rows.map((r) => r.hit), limit, (h) => SearchCursor.wire(keys.get(h)!), budget)
  return { items: rows.slice(0, cut.items.length), next_cursor: cut.next_cursor }
}

/**
 * Reciprocal rank fusion of several phrasings' hits (k = 60): a fact's score is the sum of 1 / (k +
 * its rank) over the lists it is in; it is weak only when weak in every list it is in.
 */
const fuse = (lists: ReadonlyArray<ReadonlyArray<SearchHit>>): Array<SearchHit> => {
  const fused = new Map<string, { hit: SearchHit; score: number; weak: boolean; first: number }>()
  lists.forEach((hits, l) =>
    hits.forEach((h, rank) => {
      const seen = fused.get(h.fact.id)
      const strong = h.weak !== true
      if (seen === undefined) {
        fused.set(h.fact.id, { hit: h, score: 1 / (60 + rank + 1), weak: !strong, first: l * 1000 + rank })
      } else fused.set(h.fact.id, { ...seen, score: seen.score + 1 / (60 + rank + 1), weak: seen.weak && !strong })
    })
  )
  return [...fused.values()].sort((x, y) => y.score - x.score || x.first - y.first).map((f) => {
    const { weak: _, ...rest } = f.hit
    return { ...rest, score: Math.round(f.score * 10000) / 10000, ...(f.weak ? { weak: true } : {}) }
  })
}

/** A cursor before every hit: scores are at most scoreRange[1], node ids safe integers. */
const fromTheStart: SearchKey = { score: scoreRange[1], node: Number.MAX_SAFE_INTEGER, tier: "all" }

/**
 * A first page with vectors: the word page and the vector hits fused by reciprocal rank, cut to the
 * limit (a fused hit's `score` is its fusion score). Later pages are the word ranking, from after
 * the longest run of word hits, in word order, that the first page showed: no word hit is skipped,
 * and one shown on the first page past that run may be shown again.
 */
const semanticPage = (
  words: { readonly items: ReadonlyArray<SearchRow>; readonly next_cursor: string | null },
  near: ReadonlyArray<SearchRow>,
  limit: number,
  budget: number
): { readonly items: ReadonlyArray<SearchHit>; readonly next_cursor: string | null } => {
  const fused = fuse([words.items.map((r) => r.hit), near.map((r) => r.hit)]).slice(0, limit)
  const { items } = page(fused, limit, () => [], budget)
  const shown = new Set(items.map((h) => h.fact.id))
  let run = 0
  while (run < words.items.length && shown.has(words.items[run]!.hit.fact.id)) run++
  const next_cursor = run === words.items.length
    ? words.next_cursor
    : SearchCursor.encode(run === 0 ? fromTheStart : words.items[run - 1]!.key)
  return { items, next_cursor }
}

/** Warnings a first page opens with (issue 44), beyond its limit: what not to do is read before what to do. */
export const warningsShown = 3

/** The strong warnings that match, then the page without them (a warning is listed once). */
const warningsFirst = (warnings: ReadonlyArray<{ readonly hit: SearchHit }>, hits: ReadonlyArray<SearchHit>) => {
  const first = warnings.map((w) => w.hit).filter((h) => h.weak !== true)
  const ids = new Set(first.map((h) => h.fact.id))
  return [...first, ...hits.filter((h) => !ids.has(h.fact.id))]
}

/** What a page of weak hits only opens with (issue 41). */
export const noStrongMatch = "no strong match: try the words the facts would use"

export const search = defineTool({
  name: "relay_search",
  description: "Words or a question; best first, with decisions won or lost. Weak hits matched few words; " +
    "if all are, retry with queries",
  annotations: readOnly("Search the memory"),
  // Accepted, not advertised: a session filter is for scripts more than for a model (tokens).
  unlisted: ["session_id"],
  input: SearchInput,
  output: SearchOutput,
  render: renderSearch,
  handler: Effect.fn("relay/tools/relay_search")(function*(input) {
    const after = yield* SearchCursor.decode(input.cursor)
    const store = yield* FactStore
    const statuses = filterStatuses(input.status)
    const options = (query: string, take: number, from: SearchKey | null, kind: string | null = null) => ({
      kind,
      query,
      statuses,
      writtenBy: input.written_by ?? null,
      sessionId: input.session_id ?? null,
      since: input.since ?? null,
      until: input.until ?? null,
      asOf: input.as_of ?? null,
      thread: input.thread ?? null,
      take,
      after: from
    })
    const ask = (query: string, take: number, from: SearchKey | null, kind: string | null = null) =>
      store.search(options(query, take, from, kind))
    /**
     * Nothing hidden without a word: a one-page answer under a status filter says how many other
     * matches that filter left out (a longer answer's later pages are the place for more hits).
     */
    const leftOut = (query: string, shown: number) =>
      statuses === null
        ? Effect.succeed({})
        : Effect.map(store.matchCount(options(query, 0, null), leftOutCap + shown), (n) =>
          n === null || n <= shown ? {} : { left_out: n - shown })
    if (input.queries !== undefined) {
      if (after !== null) {
        return yield* new InvalidInput({ message: "cursor: not taken with queries (one page, fused)" })
      }
      const phrasings = [input.query, ...input.queries]
      const lists = yield* Effect.forEach(phrasings, (q) => ask(q, input.limit, null))
      // With RELAY_EMBEDDINGS_URL each phrasing's nearest facts are one list more (one request for all).
      const near = (yield* store.similar(options(input.query, input.limit, null), phrasings)) ?? []
      const hits = fuse([...lists, ...near].map((rows) => rows.map((r) => r.hit))).slice(0, input.limit)
      const { items } = page(hits, input.limit, () => [], yield* currentBudget())
      const shown = warningsFirst(yield* ask(input.query, warningsShown, null, "warning"), items)
      return {
        hits: shown,
        ...(shown.every((h) => h.weak === true) ? { note: noStrongMatch } : {}),
        ...(shown.length < input.limit ? yield* leftOut(input.query, shown.length) : {}),
        next_cursor: null
      }
    }
    const rows = yield* ask(input.query, input.limit + 1, after)
    const budget = yield* currentBudget()
    const words = pageOfRows(rows, input.limit, budget)
    // A first page fuses the nearest facts by vector when RELAY_EMBEDDINGS_URL is set (semanticPage).
    const near = after === null ? yield* store.similar(options(input.query, input.limit, null), [input.query]) : null
    const { items, next_cursor } = near === null
      ? { items: words.items.map((r) => r.hit), next_cursor: words.next_cursor }
      : semanticPage(words, near[0] ?? [], input.limit, budget)
    // On an equal score a decision's winner comes first (stable, within the page: the cursor is the
    // page's last key as read, so no hit is skipped or repeated).
    const hits = items.map((h, i) => ({ h, i })).sort((x, y) =>
      x.h.score === y.h.score && x.h.weak === y.h.weak
        ? (y.h.supersedes.length > 0 ? 1 : 0) - (x.h.supersedes.length > 0 ? 1 : 0) || x.i - y.i
        : x.i - y.i
    ).map((x) => x.h)
    const listed = after === null ? warningsFirst(yield* ask(input.query, warningsShown, null, "warning"), hits) : hits
    // A first page with no strong hit (none at all, or weak ones only) says what to do next.
    return {
      hits: listed,
      ...(after === null && listed.every((h) => h.weak === true) ? { note: noStrongMatch } : {}),
      ...(after === null && next_cursor === null ? yield* leftOut(input.query, hits.length) : {}),
      next_cursor
    }
  })
})
