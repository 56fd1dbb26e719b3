import { distinctTerms, termsOf } from "../../domain/terms.js"

/**
 * What BM25 needs, kept on write (the full-text index's own score is a count of matched terms,
 * FalkorDB#1208, so Relay ranks any-word matches itself):
 *
 *   f.terms                      the fact's ranking terms, in order, with repeats (domain/terms.ts):
 *                                a term's frequency is its count, the fact's length the list's size
 *                                (in the fact's CREATE, saveFact.ts)
 *   (:Term {term, docs})         how many facts hold the term, one node a term, found through the
 *                                exact-match index on Term.term (graphIndexes.ts)
 *   (:RelayClock {id: 0}).docs   how many facts have terms; .terms how many terms they hold in all
 *
 * Written by the statement that creates the fact, only when it creates it (a retry that finds the
 * fact already there counts nothing twice): `f.created_at = ts` holds only for a fact this
 * statement stamped. Writes run one at a time per graph, so the counts are exact.
 */
export const termCountsClause = `FOREACH (_ IN CASE WHEN f.created_at = ts THEN [1] ELSE [] END | ` +
  `SET clk.docs = coalesce(clk.docs, 0) + 1, clk.terms = coalesce(clk.terms, 0) + size($terms)) ` +
  `FOREACH (t IN CASE WHEN f.created_at = ts THEN $distinctTerms ELSE [] END | ` +
  `MERGE (x:Term {term: t}) ON CREATE SET x.docs = 1 ON MATCH SET x.docs = x.docs + 1) `

/** The parameters termCountsClause reads, for a fact of this content. */
export const termCountsParams = (content: string) => {
  const terms = termsOf(content)
  return { terms, distinctTerms: distinctTerms(terms) }
}

/**
 * The same counts for facts written in bulk (import, benchmarks) with their `terms` already set:
 * `$counts` is [term, facts holding it] pairs, `$docs` the facts, `$terms` their terms in all.
 */
export const addTermCountsQuery =
  `UNWIND $counts AS c MERGE (x:Term {term: c[0]}) ON CREATE SET x.docs = c[1] ON MATCH SET x.docs = x.docs + c[1] ` +
  `WITH count(*) AS counted MERGE (k:RelayClock {id: 0}) ` +
  `SET k.docs = coalesce(k.docs, 0) + $docs, k.terms = coalesce(k.terms, 0) + $terms`

/** addTermCountsQuery's parameters for facts with these terms. */
export const addTermCountsParams = (termLists: ReadonlyArray<ReadonlyArray<string>>) => {
  const docs = new Map<string, number>()
  let terms = 0
  for (const list of termLists) {
    terms += list.length
    for (const t of distinctTerms(list)) docs.set(t, (docs.get(t) ?? 0) + 1)
  }
  return { counts: [...docs], docs: termLists.length, terms }
}
