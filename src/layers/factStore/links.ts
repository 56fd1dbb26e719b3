import { Effect, Schema } from "effect"
import { questionWords, termOf, wordsOf } from "../../domain/terms.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { batchOfRead } from "./batchRows.js"
import type { BatchForm, ReadBatcher } from "./groupCommit.js"
import { docsOf } from "./termCounts.js"

/**
 * Suggested links (issue 41 point 4): after a save, up to `linksShown` facts in other threads that
 * say nearly the same thing, so the writer can build on one, supersede one, or leave them.
 *
 * By words: the fact's `rareTerms` rarest terms that another fact holds too (document count >= 2;
 * the fact itself is counted already), found through the full-text index by their words, each
 * candidate kept when it holds at least all but one of them (all of them when there are 2 or 3). By
 * vectors, when RELAY_EMBEDDINGS_URL is set and the fact got one: its nearest facts whose cosine
 * similarity reaches RELAY_EMBEDDINGS_STRONG. Neither lists a fact of the same thread (its root), a
 * superseded or a retracted one. The two lists are fused by reciprocal rank.
 *
 * One read after the save statement (never in it, so group commit's batches are unchanged), bounded:
 * at most `scanned` full-text matches are looked at, and `vectorNearest` vector neighbours. The word
 * reads of concurrent saves go together as the saves do (groupCommit.ts `makeReadBatcher`): while one
 * is in flight the others queue and go as one statement, each row its own read (`linkReadForms`); a
 * lone one is sent at once.
 */
export const linksShown = 3
export const rareTerms = 4
const scanned = 200
/**
 * A term held by more facts than this is no sign of saying the same thing, and the full-text matches
 * of the terms looked up are at most this many each: the read stays small at any size of memory.
 */
export const rareDocs = 100
const vectorNearest = 10

const others = (v: string) =>
  `${v}.root <> root AND ${v}.id <> $id AND indegree(${v}, 'SUPERSEDES') = 0 AND indegree(${v}, 'RETRACTS') = 0`

/** The saved fact's thread, as `root`. */
const rootOfSaved = `MATCH (me:Fact {id: $id}) WITH me.root AS root `

export const wordLinksQuery = `${rootOfSaved}UNWIND $pairs AS tw MATCH (x:Term {term: tw[0]}) ` +
  `WITH root, tw, ${docsOf} AS d WHERE d >= 2 AND d <= ${rareDocs} ` +
  `WITH root, tw, d ORDER BY d, tw[0] LIMIT ${rareTerms} WITH root, collect(tw[0]) AS rare, collect(tw[1]) AS words ` +
  `WHERE size(rare) >= 2 ` +
  `CALL db.idx.fulltext.queryNodes('Fact', reduce(q = '', w IN words | q + CASE WHEN q = '' THEN '' ELSE '|' END + w)) ` +
  `YIELD node WITH root, rare, node LIMIT ${scanned} ` +
  `WITH root, node, size([t IN rare WHERE t IN coalesce(node.terms, [])]) AS shared, size(rare) AS n ` +
  `WHERE shared >= CASE WHEN n = ${rareTerms} THEN n - 1 ELSE n END AND ${others("node")} ` +
  `RETURN node.id AS id, node.content AS content ORDER BY shared DESC, node DESC LIMIT ${linksShown}`

export const vectorLinksQuery = `${rootOfSaved}` +
  `CALL db.idx.vector.queryNodes('Fact', 'embedding', ${vectorNearest}, vecf32($vector)) ` +
  `YIELD node, score WITH root, node, 1 - score AS similarity WHERE similarity >= $strong AND ${others("node")} ` +
  `RETURN node.id AS id, node.content AS content ORDER BY similarity DESC LIMIT ${linksShown}`

const LinkRow = Schema.Struct({ id: Schema.String, content: Schema.String })
export type Link = typeof LinkRow.Type

/**
 * The word read's batch form: its rows each run the lone read in a `CALL {}` (FalkorDB 4.16 runs the
 * full-text procedure, the aggregation and each LIMIT per row there), their links keyed by `gc_k`.
 */
export const linkReadForms = (): ReadonlyMap<string, BatchForm> =>
  new Map([[wordLinksQuery, {
    cypher: batchOfRead(wordLinksQuery, Object.keys(LinkRow.fields), "lk_b"),
    params: (rows) => ({ batch: rows })
  }]])

/** Each distinct term of the text with the first word that gives it (the full-text index is queried by words). */
export const termWords = (content: string): Array<readonly [string, string]> => {
  const seen = new Map<string, string>()
  for (const w of wordsOf(content)) {
    if (questionWords.has(w)) continue
    const t = termOf(w)
    if (!seen.has(t)) seen.set(t, w)
  }
  return [...seen]
}

/** Reciprocal rank fusion (k = 60) of the word and vector lists; ties: the word list's order first. */
const fused = (lists: ReadonlyArray<ReadonlyArray<Link>>): Array<Link> => {
  const by = new Map<string, { link: Link; score: number; first: number }>()
  lists.forEach((list, l) =>
    list.forEach((link, rank) => {
      const s = 1 / (61 + rank)
      const seen = by.get(link.id)
      by.set(
        link.id,
        seen === undefined ? { link, score: s, first: l * 100 + rank } : { ...seen, score: seen.score + s }
      )
    })
  )
  return [...by.values()].sort((a, b) => b.score - a.score || a.first - b.first).map((x) => x.link)
}

/** The suggested links of a saved fact (its id, text and, when it got one, vector). */
export const suggestLinks = (
  db: GraphDatabase["Type"],
  reads: ReadBatcher,
  fact: { readonly id: string; readonly content: string },
  vector: { readonly vector: ReadonlyArray<number>; readonly strong: number } | null
) =>
  Effect.gen(function*() {
    const pairs = termWords(fact.content)
    const words = pairs.length < 2 ? [] : yield* reads.read(
      wordLinksQuery,
      { pairs: pairs.map(([t, w]) => [t, w]), id: fact.id },
      LinkRow
    )
    const near = vector === null ? [] : yield* db.read(
      vectorLinksQuery,
      { vector: [...vector.vector], strong: vector.strong, id: fact.id },
      LinkRow
    )
    return fused([words, near]).slice(0, linksShown)
  }).pipe(
    // The fact has landed: a suggestion that cannot be read is no error of the save's (an internal
    // error would have the client retry a save that landed); logged, and the reply has no links.
    Effect.catchAllCause((cause) =>
      Effect.as(Effect.logWarning("suggested links not read", cause), [] as ReadonlyArray<Link>)
    )
  )
