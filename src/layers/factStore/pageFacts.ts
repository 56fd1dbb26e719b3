import { Effect, Schema } from "effect"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { alsoOnOf, factFields, parentIdOf, storedFields } from "./projection.js"

/**
 * The facts of one page of a walk down (impact, a revision's stale list), by node id, each with its
 * own first parent and, for a merge, the others: not the parent the walk came through, which for a
 * fact reached through an extra parent is not its first. The id is bound to a plain variable
 * first: `id(f) = r[0]` made FalkorDB 4.16 scan every node per row instead of seeking.
 */
export const pageFactsQuery = `UNWIND $nodes AS node MATCH (f) WHERE id(f) = node ` +
  `RETURN node, {${factFields("f")}, parent_id: ${parentIdOf("f")}, also_on: ${alsoOnOf("f")}} AS fact`

const PageFactRow = Schema.Struct({
  node: Schema.Number,
  fact: Schema.Struct({
    ...storedFields,
    parent_id: Schema.String,
    also_on: Schema.NullOr(Schema.Array(Schema.String))
  })
})

/** The stored fields of the facts at `nodes`, by node (a fact on several parents with builds_on); status is the caller's. */
export const pageFacts = (db: GraphDatabase["Type"], nodes: ReadonlyArray<number>) =>
  (nodes.length === 0 ? Effect.succeed([]) : db.read(pageFactsQuery, { nodes }, PageFactRow)).pipe(
    Effect.map((rows) =>
      new Map(rows.map(({ fact: { also_on, ...fact }, node }) => [
        node,
        also_on === null ? fact : { ...fact, builds_on: [fact.parent_id, ...also_on] }
      ]))
    )
  )
