import { Effect, Schema } from "effect"
import { chainBudgetBytes, type ContextCursor, type PageRequest } from "../../domain/chainPaging.js"

import { noFactWithId } from "../../domain/errors.js"
import type { Fact } from "../../domain/fact.js"
import { currentBudget, page } from "../../domain/paging.js"
import type { Page } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { ChainFactRow, factFields, ownStatusAsOf, stampOf, withParent } from "./projection.js"
import { staleBy, staleNow } from "./staleness.js"

/**
 * One page of the BUILDS_ON chain of x, read from x toward the root: the `$take` nearest ancestors
 * (x itself counts) older than `$before`, newest first. No path is materialised (a path per row made
 * the old query quadratic: 6.4 s at 3,000 deep): a parent is always stamped before its child (save
 * in saveFact.ts stamps inside the statement that links the new fact to its existing parent), so
 * along a chain created_at orders the facts, and a page is a LIMIT over one walk. Each fact's
 * staleness is stored (staleness.ts). Cost: one walk up x's chain (linear in its depth) and `$take`
 * facts mapped.
 */
export const contextQuery = `MATCH (x:Fact {id: $id}) ` +
  `OPTIONAL MATCH (x)-[:BUILDS_ON*0..]->(a) WHERE $before IS NULL OR a.created_at < $before ` +
  `WITH a ORDER BY a.created_at DESC LIMIT $take ` +
  `RETURN CASE WHEN a IS NULL THEN NULL ELSE {${factFields("a")}, superseded: indegree(a, 'SUPERSEDES') > 0, ` +
  `retracted: indegree(a, 'RETRACTS') > 0, stale: ${staleNow("a")}} END AS fact`

/**
 * The same page as the memory stood at `$asOf`: x must have been saved by then (its ancestors are
 * older still), and only decisions and retractions stamped by then count.
 */
export const contextAsOfQuery = `MATCH (x:Fact {id: $id}) WHERE x.created_at <= $asOf ` +
  `OPTIONAL MATCH (x)-[:BUILDS_ON*0..]->(a) WHERE $before IS NULL OR a.created_at < $before ` +
  `WITH a ORDER BY a.created_at DESC LIMIT $take ` +
  `RETURN CASE WHEN a IS NULL THEN NULL ELSE {${factFields("a")}, ${ownStatusAsOf("a")}, ` +
  `stale: ${staleBy("a", "$asOf")}} END AS fact`

/** A row of the walk: null when no fact of the chain is older than the cursor (the OPTIONAL MATCH found none). */
const ChainRow = Schema.Struct({ fact: Schema.NullOr(ChainFactRow) })

export const context = (
  db: GraphDatabase["Type"],
  id: string,
  request: PageRequest<ContextCursor>,
  asOf: number | null = null,
  field = "fact_id"
) =>
  db.read(asOf === null ? contextQuery : contextAsOfQuery, {
    id,
    before: request.cursor?.[0] ?? null,
    take: request.limit + 1,
    asOf
  }, ChainRow).pipe(
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
      // Nearest first, so the page ends with x and the next one reads on toward the root. Each
      // fact's parent is the next one read (the root's is null: it is the last row there is).
      const facts = chain.map((f, i) => withParent(f, chain[i + 1]?.id ?? null))
      const { items, next_cursor } = page(facts, request.limit, (f) => [stampOf(f)], budget)
      return Effect.succeed<Page<Fact>>({ items: [...items].reverse(), next_cursor })
    })
  )
