import { Effect, Schema } from "effect"
import type { DatabaseError } from "../../domain/errors.js"
import type { ChainDecision } from "../../domain/outputs.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { DecisionRow, lostComprehension, lostTo } from "./decisionSides.js"

/** For each listed fact, the decisions it lost (up to 3), as of `$asOf` when it is not null. */
export const lostDecisionsQuery = `UNWIND $ids AS id MATCH (l:Fact {id: id}) ` +
  `RETURN l.id AS fact_id, ${lostComprehension("l")} AS lost`

const Row = Schema.Struct({ fact_id: Schema.String, lost: Schema.Array(DecisionRow) })

/** Why the listed facts are superseded, in the order they are listed and each fact's oldest first. */
export const lostDecisions = (
  db: GraphDatabase["Type"],
  ids: ReadonlyArray<string>,
  asOf: number | null
): Effect.Effect<ReadonlyArray<ChainDecision>, DatabaseError> =>
  ids.length === 0 ? Effect.succeed([]) : db.read(lostDecisionsQuery, { ids, asOf }, Row).pipe(
    Effect.map((rows) => rows.flatMap((r) => r.lost.map((d) => ({ fact_id: r.fact_id, ...lostTo(d) }))))
  )
