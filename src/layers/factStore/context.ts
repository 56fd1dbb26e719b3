import { Effect, Schema } from "effect"
import { chainBudgetBytes, type ContextCursor, contextMax, type PageRequest } from "../../domain/chainPaging.js"

import { noFactWithId } from "../../domain/errors.js"
import type { Fact } from "../../domain/fact.js"
import { currentBudget, page } from "../../domain/paging.js"
import type { Page } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { anyMerge, leanUnlessMerged, type MergeGate } from "./mergeGate.js"
import { ChainFactRow, factFields, ownStatusAsOf, parentIdOf, stampOf, withParent } from "./projection.js"
import { staleBy, staleNow } from "./staleness.js"
import { hubsOf, throughMerges } from "./walkDown.js"

/**
 * One page of the BUILDS_ON chain of x, read from x toward the root: the `$take` nearest ancestors
 * (x itself counts) older than `$before`, newest first. No path is materialised (a path per row made
 * the old query quadratic: 6.4 s at 3,000 deep): a parent is always stamped before its child (save
 * in saveFact.ts stamps inside the statement that links the new fact to its existing parent), so
 * along a chain created_at orders the facts, and a page is a LIMIT over one walk. Each fact's
 * staleness is stored (staleness.ts). Cost: one walk up x's chain (linear in its depth) and `$take`
 * facts mapped.
 */
/**
 * Every fact x builds on, x included, as `a` rows older than `$before`: its first parents' chain in
 * one walk, then the chains of the extra parents met on it, round after round (walkDown.ts), each
 * fact once.
 */
const ancestorsOf = `OPTIONAL MATCH (x)-[:BUILDS_ON*0..]->(a0) ` +
  `WITH x, collect(a0) AS chain, ${hubsOf("a0", "up")} AS hubs ` +
  throughMerges("hubs", "more", ["x", "chain"], "up") +
  // Filtered before the UNWIND, so a cursor older than every ancestor leaves one null row (an empty page), not none.
  `WITH [c IN chain + more WHERE $before IS NULL OR c.created_at < $before] AS older ` +
  `UNWIND CASE WHEN size(older) = 0 THEN [null] ELSE older END AS a WITH DISTINCT a `

/** The first parent of the fact bound as `a` (the chain's next fact read is one of its parents, maybe not the first). */
const parentOf = `parent_id: ${parentIdOf("a")}`

export const contextQuery = `MATCH (x:Fact {id: $id}) ${ancestorsOf}` +
  `WITH a ORDER BY a.created_at DESC LIMIT $take ` +
  `RETURN CASE WHEN a IS NULL THEN NULL ELSE {${factFields("a")}, superseded: indegree(a, 'SUPERSEDES') > 0, ` +
  `retracted: indegree(a, 'RETRACTS') > 0, stale: ${staleNow("a")}, ${parentOf}} END AS fact`

/**
 * The same page as the memory stood at `$asOf`: x must have been saved by then (its ancestors are
 * older still), and only decisions and retractions stamped by then count.
 */
export const contextAsOfQuery = `MATCH (x:Fact {id: $id}) WHERE x.created_at <= $asOf ${ancestorsOf}` +
  `WITH a ORDER BY a.created_at DESC LIMIT $take ` +
  `RETURN CASE WHEN a IS NULL THEN NULL ELSE {${factFields("a")}, ${ownStatusAsOf("a")}, ` +
  `stale: ${staleBy("a", "$asOf")}, ${parentOf}} END AS fact`

/**
 * The two pages without the rounds, for a graph without merges (mergeGate.ts): the first parents'
 * chain is then all x builds on (one walk, newest first, LIMIT over it), and each row says `merged`.
 */
const leanAncestors = (hops: string) =>
  `${anyMerge(["x"])}` +
  `OPTIONAL MATCH (x)-[:BUILDS_ON*0..${hops}]->(a) WHERE $before IS NULL OR a.created_at < $before ` +
  `WITH merged, a ORDER BY a.created_at DESC LIMIT $take `

/**
 * Without merges a fact's ancestors are one path, oldest at the far end, so the first page (no
 * cursor) lies within its first `contextMax` hops: the walk stops there instead of reading the
 * whole chain (a 200,000-deep chain read whole took most of the statement timeout). A later page
 * starts below a cursor at an unknown depth, so it walks the chain.
 */
const firstPageHops = String(contextMax)

const leanContext = (hops: string) =>
  `MATCH (x:Fact {id: $id}) ${leanAncestors(hops)}` +
  `RETURN merged, CASE WHEN a IS NULL THEN NULL ELSE {${factFields("a")}, superseded: indegree(a, 'SUPERSEDES') > 0, ` +
  `retracted: indegree(a, 'RETRACTS') > 0, stale: ${staleNow("a")}, ${parentOf}} END AS fact`

const leanContextAsOf = (hops: string) =>
  `MATCH (x:Fact {id: $id}) WHERE x.created_at <= $asOf ${leanAncestors(hops)}` +
  `RETURN merged, CASE WHEN a IS NULL THEN NULL ELSE {${factFields("a")}, ${ownStatusAsOf("a")}, ` +
  `stale: ${staleBy("a", "$asOf")}, ${parentOf}} END AS fact`

export const leanContextQuery = leanContext("")
export const leanContextAsOfQuery = leanContextAsOf("")
export const leanFirstPageQuery = leanContext(firstPageHops)
export const leanFirstPageAsOfQuery = leanContextAsOf(firstPageHops)

/** A row of the walk: null when no fact of the chain is older than the cursor (the OPTIONAL MATCH found none). */
const ChainRow = Schema.Struct({
  merged: Schema.optional(Schema.Boolean),
  fact: Schema.NullOr(Schema.Struct({ ...ChainFactRow.fields, parent_id: Schema.NullOr(Schema.String) }))
})

export const context = (
  db: GraphDatabase["Type"],
  gate: MergeGate,
  id: string,
  request: PageRequest<ContextCursor>,
  asOf: number | null = null,
  field = "fact_id"
) => {
  const params = { id, before: request.cursor?.[0] ?? null, take: request.limit + 1, asOf }
  return leanUnlessMerged(
    gate,
    db.read(
      request.cursor == null
        ? (asOf === null ? leanFirstPageQuery : leanFirstPageAsOfQuery)
        : (asOf === null ? leanContextQuery : leanContextAsOfQuery),
      params,
      ChainRow
    ),
    db.read(asOf === null ? contextQuery : contextAsOfQuery, params, ChainRow)
  ).pipe(
    Effect.zip(currentBudget(chainBudgetBytes)),
    Effect.flatMap(([rows, budget]) => {
      if (rows.length === 0) {
        return Effect.fail(
          asOf === null
            ? noFactWithId(field, id)
            : noFactWithId(field, id, " at as_of")
        )
      }
      const chain = rows.flatMap((r) => r.fact === null ? [] : [r.fact])
      // Newest first, so the page ends with x and the next one reads on toward the roots.
      const facts = chain.map(({ parent_id, ...f }) => withParent(f, parent_id))
      const { items, next_cursor } = page(facts, request.limit, (f) => [stampOf(f)], budget)
      return Effect.succeed<Page<Fact>>({ items: [...items].reverse(), next_cursor })
    })
  )
}
