import { Schema } from "effect"
import { FactContent, Reason } from "./content.js"
import { AgentName, FactId, SessionId } from "./ids.js"
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
  )
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
  resolved_by: AgentName
})

export const BriefingInput = Schema.Struct({
  my_name: AgentName.annotations({ description: "Your own name: your facts and decisions are left out" }),
  since: Schema.optional(IsoTimestamp)
})

export const ImportantFactsInput = Schema.Struct({ limit: limit(10) })

/**
 * Not in the contract's table (which lists no input): a whole-graph answer at 100,000 facts is tens
 * of megabytes, past what MCP clients read, so both are bounded, with defaults that return every
 * cluster and fact of a graph of ordinary size. `size` always counts the whole cluster.
 */
export const ClustersInput = Schema.Struct({
  limit: limit(50, "How many clusters to return, largest first"),
  facts_per_cluster: limit(50, "How many facts of each cluster to return, oldest first")
})
