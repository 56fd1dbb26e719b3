import { Effect, Schema } from "effect"
import type { GraphDatabase } from "../../services/GraphDatabase.js"

const IdRow = Schema.Struct({ id: Schema.String })

/** Which of `ids` name a fact: the lookup that tells which id of a refused decision is missing. */
export const foundIds = (db: GraphDatabase["Type"], ids: ReadonlyArray<string>) =>
  db.read(`MATCH (f:Fact) WHERE f.id IN $ids RETURN f.id AS id`, { ids }, IdRow).pipe(
    Effect.map((rows) => new Set(rows.map((r) => r.id)))
  )
