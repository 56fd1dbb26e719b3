import { Schema } from "effect"
import { IsoFromStamp } from "../../domain/time.js"
import { FactFromRow } from "./projection.js"

/** A decision as the briefing shows it, straight from its row. */
export const DecisionRow = Schema.Struct({
  winner: FactFromRow,
  loser: FactFromRow,
  reason: Schema.String,
  resolved_by: Schema.String,
  created_at: IsoFromStamp
})

/** A retraction as the briefing shows it: the fact and why it was withdrawn. */
export const WithdrawalRow = Schema.Struct({
  fact: FactFromRow,
  reason: Schema.String,
  retracted_by: Schema.String,
  created_at: IsoFromStamp
})
