import { Schema } from "effect"
import { ContextCursor, contextLimit, ImpactCursor, impactLimit, staleLimit } from "./chainPaging.js"
import { FactContent, Reason, RetractReason } from "./content.js"
import { StatusFilter } from "./fact.js"
import { AgentName, FactId, SessionId } from "./ids.js"
import { Cursor, pageLimit } from "./paging.js"
import { SearchQuery } from "./search.js"
import { RequestId } from "./requestId.js"
import { IsoTimestamp } from "./time.js"

const cursor = Schema.optional(Cursor)

export const SaveFactInput = Schema.Struct({
  content: FactContent,
  written_by: AgentName,
  session_id: SessionId,
  parent_fact_id: Schema.optional(
    FactId.annotations({ description: "The fact this one builds on (its provenance); omit for a new thread" })
  ),
  request_id: Schema.optional(RequestId)
})

/** Time travel: the read answers as the memory stood at this time. */
const asOf = Schema.optional(IsoTimestamp.annotations({
  description: "Answer as the memory stood at this time (ISO 8601 with time and zone); later facts and decisions are left out"
}))

export const ContextInput = Schema.Struct({
  fact_id: FactId,
  limit: contextLimit,
  cursor: Schema.optional(ContextCursor),
  as_of: asOf
})

export const ImpactInput = Schema.Struct({
  fact_id: FactId,
  limit: impactLimit,
  cursor: Schema.optional(ImpactCursor)
})

export const CurrentStateInput = Schema.Struct({
  limit: pageLimit(20, 100),
  session_id: Schema.optional(SessionId.annotations({ description: "Only facts from this session" })),
  status: StatusFilter,
  written_by: Schema.optional(AgentName.annotations({ description: "Only facts written by this name" })),
  as_of: asOf,
  cursor
})

const conflictsAsOf = "Answer as the memory stood at this time (ISO 8601 with zone); anything saved or decided later is invisible"

export const ConflictsInput = Schema.Struct({
  limit: pageLimit(20, 100, "How many forked parents to return"),
  cursor,
  as_of: Schema.optional(IsoTimestamp.annotations({
    description: conflictsAsOf,
    jsonSchema: { type: "string", description: conflictsAsOf }
  }))
})

const outcomeDescription = "supersede (default): the winner overrules the loser; compatible: the two siblings in fact_ids both stand"

export const ResolveConflictInput = Schema.Struct({
  outcome: Schema.optionalWith(
    Schema.Literal("supersede", "compatible").annotations({
      description: outcomeDescription,
      jsonSchema: { type: "string", enum: ["supersede", "compatible"], default: "supersede", description: outcomeDescription }
    }),
    { default: () => "supersede" as const }
  ),
  winner_fact_id: Schema.optional(FactId.annotations({ description: "With outcome supersede: the fact that stands" })),
  loser_fact_id: Schema.optional(FactId.annotations({ description: "With outcome supersede: the fact it overrules" })),
  fact_ids: Schema.optional(
    Schema.Array(FactId).pipe(Schema.itemsCount(2, { message: () => "must be two fact ids" })).annotations({
      description: "With outcome compatible: the two sibling facts that both stand",
      jsonSchema: {
        type: "array", items: { type: "string" }, minItems: 2, maxItems: 2,
        description: "With outcome compatible: the two sibling facts that both stand"
      }
    })
  ),
  reason: Reason,
  resolved_by: AgentName,
  limit: staleLimit,
  request_id: Schema.optional(RequestId)
})

export const RetractFactInput = Schema.Struct({
  fact_id: FactId,
  reason: RetractReason,
  retracted_by: AgentName,
  limit: staleLimit,
  request_id: Schema.optional(RequestId)
})

export const BriefingInput = Schema.Struct({
  my_name: AgentName.annotations({ description: "Your own name: your facts and decisions are left out" }),
  since: Schema.optional(IsoTimestamp.annotations({
    description: "Usually left out. An ISO 8601 time with zone to read from instead (your saved position is then left alone)"
  })),
  limit: pageLimit(50, 200, "How many of each list to return"),
  cursor: Schema.optional(Cursor.annotations({
    description: "next_cursor of the previous page: continues the same window (since is then ignored)",
    jsonSchema: { type: "string", maxLength: 512, description: "next_cursor of the previous page: continues the same window (since is then ignored)" }
  }))
})

export const ImportantFactsInput = Schema.Struct({ limit: pageLimit(10, 100), cursor })

const atMost = (max: number, what: string) =>
  Schema.optional(
    Schema.Int.pipe(
      Schema.between(1, max),
      Schema.annotations({
        message: () => ({ message: `must be a whole number from 1 to ${max}`, override: true }),
        description: what,
        jsonSchema: { type: "integer", minimum: 1, maximum: max, description: what }
      })
    )
  )

/**
 * Not in the contract's table (which lists no input): both are optional and, left out, every
 * cluster and fact is returned, up to the answer's budget of facts (see domain/clusters.ts).
 */
export const ClustersInput = Schema.Struct({
  limit: atMost(1000, "At most this many clusters, largest first (default: all that fit the answer)"),
  facts_per_cluster: atMost(1000, "At most this many facts of each cluster, oldest first (default: all that fit)"),
  cursor
})

/** relay_search: a full-text query, filters, and a page of at most 50 hits (see domain/search.ts). */
export const SearchInput = Schema.Struct({
  query: SearchQuery,
  status: StatusFilter,
  written_by: Schema.optional(AgentName.annotations({ description: "Only facts written by this name" })),
  session_id: Schema.optional(SessionId.annotations({ description: "Only facts from this session" })),
  since: Schema.optional(IsoTimestamp.annotations({ description: "Only facts created after this time (ISO 8601 with time and zone)" })),
  until: Schema.optional(IsoTimestamp.annotations({ description: "Only facts created at or before this time (ISO 8601 with time and zone)" })),
  as_of: asOf,
  limit: pageLimit(10, 50, "How many hits"),
  cursor: Schema.optional(Cursor)
})
