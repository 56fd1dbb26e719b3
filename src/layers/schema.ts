import { Effect } from "effect"
import type { Graph } from "falkordb"
import { classify } from "./FalkorDbLive.js"

/**
 * Indexes the queries rely on, and the unique constraint that makes a repeated write of the same
 * fact id a no-op. Made idempotently: what exists already is left alone.
 */
const nodeIndexes = [
  "CREATE INDEX FOR (f:Fact) ON (f.id)",
  "CREATE INDEX FOR (f:Fact) ON (f.created_at)",
  "CREATE INDEX FOR (f:Fact) ON (f.session_id)",
  "CREATE INDEX FOR (c:RelayClock) ON (c.id)",
  "CREATE INDEX FOR ()-[r:SUPERSEDES]-() ON (r.created_at)"
]

const alreadyThere = /already (indexed|exists)|exists/i

export const ensureSchema = (graph: Graph) =>
  Effect.forEach(nodeIndexes, (cypher) =>
    Effect.tryPromise({ try: () => graph.query(cypher), catch: classify }).pipe(
      Effect.catchIf((e) => !e.transient && alreadyThere.test(e.detail), () => Effect.void)
    ), { discard: true }).pipe(
      Effect.zipRight(
        Effect.tryPromise({ try: () => graph.constraintCreate("UNIQUE" as never, "NODE" as never, "Fact", "id"), catch: classify }).pipe(
          Effect.catchIf((e) => !e.transient && alreadyThere.test(e.detail), () => Effect.void)
        )
      )
    )
