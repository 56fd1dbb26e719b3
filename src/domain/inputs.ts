import { Schema } from "effect"
import { FactContent, Reason } from "./content.js"
import { AgentName, FactId, SessionId } from "./ids.js"
import { IsoTimestamp } from "./time.js"

const limit = (fallback: number) =>
  Schema.optionalWith(
    Schema.Int.pipe(
      Schema.between(1, 100, { message: () => "must be a whole number from 1 to 100" }),
      Schema.annotations({ description: `How many to return (1-100, default ${fallback})` })
    ),
    { default: () => fallback }
  )

export const SaveFactInput = Schema.Struct({
  content: FactContent,
  written_by: AgentName,
  session_id: SessionId,
  parent_fact_id: Schema.optional(
    FactId.annotations({ description: "The fact this one builds on (its provenance); omit for a new thread" })
  )
})

export const FactIdInput = Schema.Struct({ fact_id: FactId })

export const CurrentStateInput = Schema.Struct({
  limit: limit(20),
  session_id: Schema.optional(SessionId.annotations({ description: "Only facts from this session" }))
})

/**
 * No fields at all. `Schema.Struct({})` alone accepts any object whatever its keys (and declares
 * `{}` as anything), so the unknown fields the contract rejects are refused here, each by name.
 */
export const NoInput = Schema.Struct({}).annotations({
  jsonSchema: { type: "object", properties: {}, additionalProperties: false }
}).pipe(
  Schema.filter((input) => {
    const extra = Object.keys(input)
    return extra.length === 0 || extra.map((key) => ({ path: [key], message: "is not a field of this tool" }))
  })
)

export const ResolveConflictInput = Schema.Struct({
  winner_fact_id: FactId,
  loser_fact_id: FactId,
  reason: Reason,
  resolved_by: AgentName
})

export const BriefingInput = Schema.Struct({
  my_name: AgentName.annotations({ description: "Your own name: your facts and decisions are left out" }),
  since: Schema.optional(IsoTimestamp)
})

export const ImportantFactsInput = Schema.Struct({ limit: limit(10) })
