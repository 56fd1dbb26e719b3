import { Effect, Schema } from "effect"
import { forkSharedTerms } from "../../domain/model/conflicts.js"
import type { GraphDatabaseShape } from "../../services/GraphDatabase.js"
import type { PairDrift } from "../../services/StoreCheck.js"
import { writeMark } from "./forkMark.js"
import { oneHop } from "./oneHop.js"

/**
 * The fork rule (domain/model/conflicts.ts `disagree`) in Cypher. Two kind-less siblings that differ
 * fork whatever they say: those pairs are never stored, the reads count them by grouping the
 * children by text (conflicts.ts, forkWindow.ts). Every other fork pair (a choice sharing at least
 * two stemmed terms with a sibling, or a pair one of which names the other in `contradicts`) is a
 * function of the two facts' own fields, which never change, so it is worked out once, by the
 * statement that saves the later of the two, and kept as `(later)-[:FORKS]->(earlier)`: a read
 * then follows the edge instead of comparing every pair of siblings.
 */

/** A fact that takes part in the grouped rule: no kind. */
export const plain = (v: string): string => `coalesce(${v}.kind, '') = ''`

/** At least `forkSharedTerms` distinct terms of `terms` (a list) are among `other` (a list). */
const sharesTerms = (terms: string, other: string): string =>
  `size(reduce(fr_s = [], fr_t IN ${terms} | CASE WHEN ${forkTerm("fr_t")} AND fr_t IN ${other} AND NOT fr_t IN fr_s ` +
  `THEN fr_s + [fr_t] ELSE fr_s END)) >= ${forkSharedTerms}`

/** domain/model/conflicts.ts isForkTerm: two characters or more, not a number. */
const forkTerm = (t: string): string => `size(${t}) >= 2 AND toInteger(${t}) IS NULL`

/** Whether the stored facts `a` and `b` (siblings) form a fork pair kept as a FORKS edge. */
export const storedPair = (a: string, b: string): string =>
  `${a}.norm <> ${b}.norm AND NOT (${plain(a)} AND ${plain(b)}) AND ` +
  `(${b}.id IN coalesce(${a}.contradicts, []) OR ${a}.id IN coalesce(${b}.contradicts, []) OR ` +
  `CASE WHEN coalesce(${a}.kind, '') = 'choice' OR coalesce(${b}.kind, '') = 'choice' ` +
  `THEN ${sharesTerms(`coalesce(${a}.terms, [])`, `coalesce(${b}.terms, [])`)} ELSE false END)`

/**
 * Whether the fact being saved (its text, kind and `contradicts` as parameters: `$norm`, `$kind`,
 * `$contradicts`, `$forkTerms`: its distinct terms the rule counts) forms such a pair with its sibling `x`.
 */
export const newPair = (x: string): string =>
  `${x}.norm <> $norm AND NOT (coalesce($kind, '') = '' AND ${plain(x)}) AND ` +
  `(${x}.id IN coalesce($contradicts, []) OR ` +
  `CASE WHEN coalesce($kind, '') = 'choice' OR coalesce(${x}.kind, '') = 'choice' ` +
  `THEN size([fr_t IN $forkTerms WHERE fr_t IN coalesce(${x}.terms, [])]) >= ${forkSharedTerms} ELSE false END)`

/** The siblings a fact forks with through a FORKS edge, either way: its fork pairs that are not both kind-less. */
export const forkedWith = (v: string): string =>
  oneHop({ from: v, dir: "both", type: "FORKS", path: `${v}_fkp`, to: `${v}_fky`, yields: `${v}_fky` })

/**
 * The FORKS edges among the children of the parent bound as `p` (a list `kids` of them bound too),
 * each pair once, later to earlier: for a batch (the bulk path, an import) and the migration,
 * which did not save the facts one at a time. Only a pair with a choice or a `contradicts` in it
 * can be one, so the pairs walked are those of such children; with `among` (a list of ids) only
 * pairs with one of those in them (a batch's own facts).
 */
export const linkKids = (kids: string, among: string | null = null): string =>
  `FOREACH (fr_a IN [fr_x IN ${kids} WHERE coalesce(fr_x.kind, '') = 'choice' OR fr_x.contradicts IS NOT NULL] | ` +
  `FOREACH (fr_b IN [fr_y IN ${kids} WHERE CASE WHEN fr_y <> fr_a${
    among === null ? "" : ` AND (fr_a.id IN ${among} OR fr_y.id IN ${among})`
  } THEN ${storedPair("fr_a", "fr_y")} ELSE false END] | ` +
  `FOREACH (_ IN CASE WHEN fr_a.created_at > fr_b.created_at THEN [1] ELSE [] END | MERGE (fr_a)-[:FORKS]->(fr_b)) ` +
  `FOREACH (_ IN CASE WHEN fr_a.created_at < fr_b.created_at THEN [1] ELSE [] END | MERGE (fr_b)-[:FORKS]->(fr_a)))) `

/**
 * An import's batch (layers/transfer): under each of `$parents`, the FORKS edges of the pairs with one
 * of `$ids` in them. Which parents they mark is the import's rule (domain/forkMarks.ts), as for the
 * kind-less pairs.
 */
export const linkForksQuery = `UNWIND $parents AS pid MATCH (p:Fact {id: pid}) ` +
  // Along each parent's own adjacency (oneHop.ts): a labelled two-type comprehension built a matrix
  // a row, most of this statement's time on a 20k graph (PROFILE).
  `WITH p, ${oneHop({ from: "p", dir: "in", type: "BUILDS_ON", path: "lf_b", to: "lf_bk", yields: "lf_bk" })} + ${
    oneHop({ from: "p", dir: "in", type: "ALSO_ON", path: "lf_a", to: "lf_ak", yields: "lf_ak" })
  } AS kids ` +
  linkKids("kids", "$ids")

/** Choices one statement of the migration reads. */
const relinkBatch = 10_000

/**
 * Schema 7's re-marking (schemaVersion.ts): the parents of the next `relinkBatch` choices
 * after `$after` (by node id) get the FORKS edges of their children and a ForkMark where one is now
 * a fork pair; rewindForks then sets every window from the edges under the new rule.
 */
const relinkQuery = `MATCH (c:Fact) WHERE id(c) > $after AND c.kind = 'choice' WITH c LIMIT ${relinkBatch} ` +
  `WITH collect(c) AS cs, max(id(c)) AS last, count(c) AS n ` +
  `UNWIND CASE WHEN n = 0 THEN [null] ELSE cs END AS c ` +
  `OPTIONAL MATCH (c)-[:BUILDS_ON|ALSO_ON]->(p) ` +
  `WITH last, n, collect(DISTINCT p) AS ps ` +
  `UNWIND CASE WHEN size(ps) = 0 THEN [null] ELSE ps END AS p ` +
  `WITH last, n, p, [(p)<-[:BUILDS_ON|ALSO_ON]-(k:Fact) | k] AS kids ` +
  linkKids("kids") +
  `FOREACH (_ IN CASE WHEN p IS NOT NULL AND indegree(p, 'MARKS') = 0 AND ` +
  `any(k IN kids WHERE indegree(k, 'FORKS') + outdegree(k, 'FORKS') > 0) THEN [1] ELSE [] END | ` +
  `${writeMark("p", "true", "0")}) ` +
  `RETURN last, n LIMIT 1`

const BatchRow = Schema.Struct({ last: Schema.NullOr(Schema.Number), n: Schema.Number })

/** Every choice's pairs as FORKS edges, in statements of `relinkBatch` choices. */
export const relinkForks = Effect.fn("relay/factStore/relinkForks")(function*(
  db: Pick<GraphDatabaseShape, "write">
) {
  for (let after = -1;;) {
    const row = (yield* db.write(relinkQuery, { after }, BatchRow))[0]
    if (row === undefined || row.last === null || row.n < relinkBatch) return
    after = row.last
  }
})

/**
 * check-db --verify's batch: fewer than the re-marking's, since each choice is compared with every
 * sibling in the statement (a 50,000-fact memory's batch of 10,000 passed the statement timeout).
 */
const pairDriftBatch = 1_000

/**
 * check-db --verify: each choice or fact with `contradicts` (the next `pairDriftBatch` after `$after`)
 * against every sibling, whether a FORKS edge joins them exactly when the rule makes them a pair.
 */
const pairDriftQuery = `MATCH (c:Fact) WHERE id(c) > $after AND (c.kind = 'choice' OR c.contradicts IS NOT NULL) ` +
  `WITH c LIMIT ${pairDriftBatch} ` +
  `WITH collect(c) AS cs, max(id(c)) AS last, count(c) AS n ` +
  `UNWIND CASE WHEN n = 0 THEN [null] ELSE cs END AS c ` +
  `OPTIONAL MATCH (c)-[:BUILDS_ON|ALSO_ON]->(:Fact)<-[:BUILDS_ON|ALSO_ON]-(y:Fact) WHERE y <> c ` +
  `WITH last, n, c, y, CASE WHEN y IS NULL THEN false ELSE ${storedPair("c", "y")} END AS want, ` +
  `CASE WHEN y IS NULL THEN false ELSE size([e IN ${forkedWith("c")} WHERE e = y]) > 0 END AS have ` +
  `RETURN last, n, collect(CASE WHEN want <> have THEN [c.id, y.id, want] END) AS drifted`

const PairDriftRow = Schema.Struct({
  last: Schema.NullOr(Schema.Number),
  n: Schema.Number,
  drifted: Schema.Array(Schema.Tuple(Schema.String, Schema.String, Schema.Boolean))
})

/** The sibling pairs whose FORKS edge disagrees with the rule, and how many facts were checked. */
export const pairDrift = Effect.fn("relay/factStore/pairDrift")(function*(db: Pick<GraphDatabaseShape, "read">) {
  const drifted: Array<PairDrift> = []
  let checked = 0
  for (let after = -1;;) {
    const row = (yield* db.read(pairDriftQuery, { after }, PairDriftRow))[0]
    if (row === undefined || row.last === null) break
    checked += row.n
    const seen = new Set(drifted.map((d) => `${d.id} ${d.sibling}`))
    for (const [id, sibling, pair] of row.drifted) {
      if (!seen.has(`${id} ${sibling}`)) drifted.push({ id, sibling, pair })
    }
    if (row.n < pairDriftBatch) break
    after = row.last
  }
  return { checked, drifted }
})
