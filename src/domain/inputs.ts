import { Schema } from "effect"
import { ContextCursor, contextLimit, ImpactCursor, impactLimit, staleLimit } from "./chainPaging.js"
import { FactContent, Reason, RetractReason } from "./content.js"
import { StatusFilter } from "./fact.js"
import { AgentName, FactId, SessionId } from "./ids.js"
import { Cursor, MaxTokens, pageLimit, wholeNumber } from "./paging.js"
import { RequestId } from "./requestId.js"
import { SearchQuery } from "./search.js"
import { IsoTimestamp } from "./time.js"

const cursor = Schema.optional(Cursor)

export const SaveFactInput = Schema.Struct({
  content: FactContent,
  written_by: AgentName,
  session_id: SessionId,
  parent_fact_id: Schema.optional(
    FactId.annotations({ description: "The fact this builds on; omit to start a thread" })
  ),
  request_id: Schema.optional(RequestId)
})

/** Time travel: the read answers as the memory stood at this time. */
const asOf = Schema.optional(IsoTimestamp.annotations({ description: "As of this time (with zone)" }))

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
  session_id: Schema.optional(SessionId.annotations({ description: "Only this session's facts" })),
  status: StatusFilter,
  written_by: Schema.optional(AgentName.annotations({ description: "Only this writer's facts" })),
  as_of: asOf,
  cursor,
  max_tokens: MaxTokens
})

export const ConflictsInput = Schema.Struct({
  limit: pageLimit(20, 100),
  cursor,
  as_of: asOf,
  max_tokens: MaxTokens
})

const outcomeDescription = "compatible: fact_ids both stand"

export const ResolveConflictInput = Schema.Struct({
  outcome: Schema.optionalWith(
    Schema.Literal("supersede", "compatible").annotations({
      description: outcomeDescription,
      jsonSchema: {
        type: "string",
        enum: ["supersede", "compatible"],
        default: "supersede",
        description: outcomeDescription
      }
    }),
    { default: () => "supersede" as const }
  ),
  winner_fact_id: Schema.optional(FactId.annotations({ description: "The fact that stands" })),
  loser_fact_id: Schema.optional(FactId.annotations({ description: "The fact it overrules" })),
  fact_ids: Schema.optional(
    Schema.Array(FactId).pipe(Schema.itemsCount(2, { message: () => "must be two fact ids" })).annotations({
      description: "The two siblings (outcome compatible)",
      jsonSchema: {
        type: "array",
        items: { type: "string" },
        minItems: 2,
        maxItems: 2,
        description: "The two siblings (outcome compatible)"
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
  my_name: AgentName.annotations({ description: "Your name; your own facts are left out" }),
  since: Schema.optional(IsoTimestamp.annotations({
    description: "Left out: from your last briefing. Or a time with zone"
  })),
  limit: pageLimit(50, 200, "Page size of each list"),
  cursor: Schema.optional(Cursor.annotations({
    description: "next_cursor to read on",
    jsonSchema: { type: "string", description: "next_cursor to read on" }
  })),
  max_tokens: MaxTokens
})

export const ImportantFactsInput = Schema.Struct({ limit: pageLimit(10, 100), cursor, max_tokens: MaxTokens })

const atMost = (max: number, what: string) => Schema.optional(wholeNumber(1, max, what, { minimum: 1, maximum: max }))

/**
 * Not in the contract's table (which lists no input): both are optional and, left out, every
 * cluster and fact is returned, up to the answer's budget of facts (see domain/clusters.ts).
 */
export const ClustersInput = Schema.Struct({
  limit: atMost(1000, "Most clusters to return"),
  facts_per_cluster: atMost(1000, "Most facts per cluster"),
  cursor,
  max_tokens: MaxTokens
})

/** relay_search: a full-text query, filters, and a page of at most 50 hits (see domain/search.ts). */
export const SearchInput = Schema.Struct({
  query: SearchQuery,
  status: StatusFilter,
  written_by: Schema.optional(AgentName.annotations({ description: "Only this writer's facts" })),
  session_id: Schema.optional(SessionId.annotations({ description: "Only this session's facts" })),
  since: Schema.optional(IsoTimestamp.annotations({ description: "Only after this time (with zone)" })),
  until: Schema.optional(IsoTimestamp.annotations({ description: "Only at or before this time (with zone)" })),
  as_of: asOf,
  limit: pageLimit(10, 50),
  cursor: Schema.optional(Cursor),
  max_tokens: MaxTokens
})
