import { distinctTerms } from "../../domain/terms.js"
import { clockSetQuery } from "../database/clock.js"

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
/**
 * Adds `n` to the count of facts holding the term `t` (its DOCS edge starts from what the node held).
 * Only inside a FOREACH, one term an iteration, and never with ON CREATE / ON MATCH: see clockWrite.
 */
export const addDocs = (t: string, n: string): string =>
  `MERGE (x:Term {term: ${t}}) MERGE (x)-[d:DOCS]->(x) SET d.n = coalesce(d.n, x.docs, 0) + ${n}`

/**
 * How many facts hold the term bound as `x` (0: none), one value however many DOCS edges it has. By
 * type(): a typed pattern in a plan cached before the type existed finds nothing (schemaVersion.ts).
 */
export const docsOf = "coalesce(head([(x)-[x_d]->(x) WHERE type(x_d) = 'DOCS' | x_d.n]), x.docs, 0)"

/** The clock's term counts (schemaVersion.ts clockWrite) after a save that created its fact. */
export const termClockValues = {
  docs: "coalesce(clk.docs, 0) + 1",
  terms: "coalesce(clk.terms, 0) + size($terms)"
} as const

/** Each distinct term's count, when this statement stamped the fact it binds as `f`. */
export const termCountsClause = `FOREACH (t IN CASE WHEN f.created_at = ts THEN $distinctTerms ELSE [] END | ${
  addDocs("t", "1")
}) `

/** The parameter termCountsClause reads, for a fact of these terms (factNode.ts factRow). */
export const termCountsParams = (terms: ReadonlyArray<string>) => ({ distinctTerms: distinctTerms(terms) })

/**
 * The same counts for facts written in bulk (import, benchmarks) with their `terms` already set:
 * `$counts` is [term, facts holding it] pairs, `$docs` the facts, `$terms` their terms in all.
 */
export const addTermCountsQuery = `FOREACH (c IN $counts | ${addDocs("c[0]", "c[1]")}) WITH 1 AS one ` +
  clockSetQuery({ docs: "coalesce(clk.docs, 0) + $docs", terms: "coalesce(clk.terms, 0) + $terms" })

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
