import { Effect, Schema } from "effect"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { clockRead } from "../database/clock.js"
import { docsOf } from "./termCounts.js"

/**
 * Matching and ranking by the terms each fact keeps (termCounts.ts), as Cypher over a list of
 * terms bound as `ts`. A query's items come as `$items` (domain/search.ts' SearchPlan): each item a
 * list of alternatives, each alternative the terms that must all be there; a term ending in `*` is a
 * prefix.
 */
const altIn = (ts: string) =>
  `all(t IN alt WHERE CASE WHEN t ENDS WITH '*' THEN any(x IN ${ts} WHERE x STARTS WITH left(t, size(t) - 1)) ` +
  `ELSE t IN ${ts} END)`

/** Every item of the query has an alternative whose terms are all in `ts`. */
export const allItemsIn = (ts: string) => `all(item IN $items WHERE any(alt IN item WHERE ${altIn(ts)}))`

/** Some item of the query has such an alternative. */
export const anyItemIn = (ts: string) => `any(item IN $items WHERE any(alt IN item WHERE ${altIn(ts)}))`

/** BM25's usual constants. */
export const k1 = 1.2
export const b = 0.75

/**
 * Okapi BM25 of the fact whose terms are `ts`: for each query term (`$q`, [term, idf] pairs), its
 * idf times tf (k1 + 1) / (tf + k1 (1 - b + b |ts| / avgdl)), where tf is the term's count in `ts`.
 */
export const bm25Of = (ts: string) =>
  `reduce(s = 0.0, w IN [q IN $q | [q[1], size([x IN ${ts} WHERE x = q[0]])]] | ` +
  `s + CASE WHEN w[1] = 0 THEN 0.0 ELSE w[0] * w[1] * ${k1 + 1} / ` +
  `(w[1] + ${k1} * (${1 - b} + ${b} * size(${ts}) / $avgdl)) END)`

/**
 * The idf weight of the query terms (`$q`) that the terms `ts` hold, each once: how much of the query
 * a fact's words carry. `v` names its variables apart (FalkorDB 4.16 binds a name once a query).
 */
export const heldWeightOf = (ts: string, v: string) =>
  `reduce(${v}s = 0.0, ${v}q IN $q | ${v}s + CASE WHEN ${v}q[0] IN ${ts} THEN ${v}q[1] ELSE 0.0 END)`

/**
 * What a fact builds on weighs in its rank at this share: a fact is read in the context of its
 * parent ("pool size 20" under "Postgres settings" answers "postgres pool size"; a reply answers the
 * question before it). Only the any-word tier ranks so; a hit's strength stays its own words'.
 */
export const parentWeight = 0.5

/**
 * `node` (its terms bound as `ts`) ranked as `score`: its own BM25 plus `parentWeight` times the
 * idf weight of the query terms the best of its parents holds. The parent's side counts each term
 * once, with no length norm: membership tests on the stored list, not a count per term, keep the
 * parents' share of the statement near its own (a BM25 of every parent cost three times the rest).
 * The edge is read without a label: BUILDS_ON joins facts only.
 */
export const contextScore = (node: string, ts: string) =>
  `WITH ${node}, ${bm25Of(ts)} AS own OPTIONAL MATCH (${node})-[:BUILDS_ON]->(pp) ` +
  `WITH ${node}, own, max(${heldWeightOf("pp.terms", "p")}) ` +
  `AS pb WITH ${node}, own + ${parentWeight} * coalesce(pb, 0.0) AS score `

const WeightRow = Schema.Struct({ term: Schema.String, docs: Schema.Number, n: Schema.Number, len: Schema.Number })

/** The document counts of the query's terms (through Term.term's index) and the whole memory's, in one read. */
export const weightsQuery = `${clockRead([])}WITH coalesce(clk.docs, 0) AS n, coalesce(clk.terms, 0) AS len ` +
  `UNWIND $terms AS term OPTIONAL MATCH (x:Term {term: term}) ` +
  `RETURN term, ${docsOf} AS docs, n, len`

/** BM25's idf: ln(1 + (N - df + 0.5) / (df + 0.5)), never negative. */
export const idf = (n: number, df: number): number => Math.log(1 + (Math.max(n - df, 0) + 0.5) / (df + 0.5))

/** The `$q` and `$avgdl` parameters of bm25Of for these terms. */
export const termWeights = (db: GraphDatabase["Type"], terms: ReadonlyArray<string>) =>
  db.read(weightsQuery, { terms }, WeightRow).pipe(
    Effect.map((rows) => {
      const n = rows[0]?.n ?? 0
      const len = rows[0]?.len ?? 0
      return {
        q: rows.map((r) => [r.term, idf(n, r.docs)] as const),
        avgdl: n > 0 && len > 0 ? len / n : 1
      }
    })
  )
