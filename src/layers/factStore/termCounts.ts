import { distinctTerms, termsOf } from "../../domain/terms.js"
import { clockMerge } from "../database/schemaVersion.js"

/**
 * What BM25 needs, kept on write (the full-text index's own score is a count of matched terms,
 * FalkorDB#1208, so Relay ranks any-word matches itself):
 *
 *   f.terms                      the fact's ranking terms, in order, with repeats (domain/terms.ts):
 *                                a term's frequency is its count, the fact's length the list's size
 *                                (in the fact's CREATE, saveFact.ts)
 *   (:Term {term})-[:DOCS {n}]->(itself)   how many facts hold the term, one node a term, found
 *                                through the exact-match index on Term.term (graphIndexes.ts); on an
 *                                edge, as the clock's counters (schemaVersion.ts: an update of a node
 *                                costs with the graph's size), `docs` on the node what an older Relay left
 *   the clock's .docs            how many facts have terms; .terms how many terms they hold in all
 *
 * Written by the statement that creates the fact, only when it creates it (a retry that finds the
 * fact already there counts nothing twice): `f.created_at = ts` holds only for a fact this
 * statement stamped. Writes run one at a time per graph, so the counts are exact.
 */
/** Adds `n` to the count of facts holding the term `t` (its DOCS edge made with what the node held). */
export const addDocs = (t: string, n: string): string =>
  `MERGE (x:Term {term: ${t}}) MERGE (x)-[d:DOCS]->(x) ON CREATE SET d.n = coalesce(x.docs, 0) + ${n} ` +
  `ON MATCH SET d.n = d.n + ${n}`

/** How many facts hold the term bound as `x` (null: none), after `OPTIONAL MATCH (x)-[d:DOCS]->(x)`. */
export const docsOf = "coalesce(d.n, x.docs, 0)"

export const termCountsClause = `FOREACH (_ IN CASE WHEN f.created_at = ts THEN [1] ELSE [] END | ` +
  `SET clk.docs = coalesce(clk.docs, 0) + 1, clk.terms = coalesce(clk.terms, 0) + size($terms)) ` +
  `FOREACH (t IN CASE WHEN f.created_at = ts THEN $distinctTerms ELSE [] END | ${addDocs("t", "1")}) `

/** The parameters termCountsClause reads, for a fact of this content. */
export const termCountsParams = (content: string) => {
  const terms = termsOf(content)
  return { terms, distinctTerms: distinctTerms(terms) }
}

/**
 * The same counts for facts written in bulk (import, benchmarks) with their `terms` already set:
 * `$counts` is [term, facts holding it] pairs, `$docs` the facts, `$terms` their terms in all.
 */
export const addTermCountsQuery = `UNWIND $counts AS c ${addDocs("c[0]", "c[1]")} ` +
  `WITH count(*) AS counted ${clockMerge}` +
  `SET clk.docs = coalesce(clk.docs, 0) + $docs, clk.terms = coalesce(clk.terms, 0) + $terms`

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
