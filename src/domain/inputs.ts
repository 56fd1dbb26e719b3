import { Schema } from "effect"
import { FactContent, Reason } from "./content.js"
import { AgentName, FactId, SessionId } from "./ids.js"
import { RequestId } from "./requestId.js"
import { IsoTimestamp } from "./time.js"

const limit = (fallback: number, what = "How many to return") =>
  Schema.optionalWith(
    Schema.Int.pipe(
      Schema.between(1, 100),
      Schema.annotations({
        // One message for every way to miss: "5", 1.5, 0 and 101 all get the rule, never the value.
        message: () => ({ message: "must be a whole number from 1 to 100", override: true }),
        description: `${what} (1-100, default ${fallback})`
      })
    ),
    { default: () => fallback }
  )

export const SaveFactInput = Schema.Struct({
  content: FactContent,
  written_by: AgentName,
  session_id: SessionId,
  parent_fact_id: Schema.optional(
    FactId.annotations({ description: "The fact this one builds on (its provenance); omit for a new thread" })
  ),
  request_id: Schema.optional(RequestId)
})

export const FactIdInput = Schema.Struct({ fact_id: FactId })

export const CurrentStateInput = Schema.Struct({
  limit: limit(20),
  session_id: Schema.optional(SessionId.annotations({ description: "Only facts from this session" }))
})

/** No fields at all: an empty Struct alone would accept any object, so say that every key is unknown. */
export const NoInput = Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Never }))

export const ResolveConflictInput = Schema.Struct({
  winner_fact_id: FactId,
  loser_fact_id: FactId,
  reason: Reason,
  resolved_by: AgentName,
  request_id: Schema.optional(RequestId)
})

export const BriefingInput = Schema.Struct({
  my_name: AgentName.annotations({ description: "Your own name: your facts and decisions are left out" }),
  since: Schema.optional(IsoTimestamp)
})

export const ImportantFactsInput = Schema.Struct({ limit: limit(10) })

const atMost = (max: number, what: string) =>
  Schema.optional(
    Schema.Int.pipe(
      Schema.between(1, max),
      Schema.annotations({
        message: () => ({ message: `must be a whole number from 1 to ${max}`, override: true }),
        description: what
      })
    )
  )

/**
 * Not in the contract's table (which lists no input): both are optional and, left out, every
 * cluster and fact is returned, up to the answer's budget of facts (see domain/clusters.ts).
 */
export const ClustersInput = Schema.Struct({
  limit: atMost(1000, "At most this many clusters, largest first (default: all that fit the answer)"),
  facts_per_cluster: atMost(1000, "At most this many facts of each cluster, oldest first (default: all that fit)")
})
