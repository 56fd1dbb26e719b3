import { Schema } from "effect"
import { ContextCursor, contextLimit, ImpactCursor, impactLimit, staleLimit } from "./chainPaging.js"
import { FactContent, Reason } from "./content.js"
import { FactStatus } from "./fact.js"
import { AgentName, FactId, SessionId } from "./ids.js"
import { Cursor, MaxTokens, pageLimit } from "./paging.js"
import { SearchQuery } from "./search.js"
import { RequestId } from "./requestId.js"
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

export const ContextInput = Schema.Struct({
  fact_id: FactId,
  limit: contextLimit,
  cursor: Schema.optional(ContextCursor),
  max_tokens: MaxTokens
})

export const ImpactInput = Schema.Struct({
  fact_id: FactId,
  limit: impactLimit,
  cursor: Schema.optional(ImpactCursor),
  max_tokens: MaxTokens
})

export const CurrentStateInput = Schema.Struct({
  limit: pageLimit(20, 100),
  session_id: Schema.optional(SessionId.annotations({ description: "Only this session's facts" })),
  cursor,
  max_tokens: MaxTokens
})

export const ConflictsInput = Schema.Struct({
  limit: pageLimit(20, 100),
  cursor,
  max_tokens: MaxTokens
})

export const ResolveConflictInput = Schema.Struct({
  winner_fact_id: FactId,
  loser_fact_id: FactId,
  reason: Reason,
  resolved_by: AgentName,
  limit: staleLimit,
  request_id: Schema.optional(RequestId)
})

export const BriefingInput = Schema.Struct({
  my_name: AgentName.annotations({ description: "Your name; your own facts are left out" }),
  since: Schema.optional(IsoTimestamp.annotations({ description: "Time with zone to start after: your last as_of" })),
  limit: pageLimit(50, 200, "Page size of each list"),
  cursor: Schema.optional(Cursor.annotations({
    description: "next_cursor of the previous page (same window; since is ignored)",
    jsonSchema: { type: "string", description: "next_cursor of the previous page (same window; since is ignored)" }
  })),
  max_tokens: MaxTokens
})

export const ImportantFactsInput = Schema.Struct({ limit: pageLimit(10, 100), cursor, max_tokens: MaxTokens })

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
  limit: atMost(1000, "Most clusters to return"),
  facts_per_cluster: atMost(1000, "Most facts per cluster"),
  cursor,
  max_tokens: MaxTokens
})

const statusMessage = "must be \"any\", a status (active, superseded, stale) or a list of them"
const SearchStatus = Schema.Union(
  Schema.Literal("any", "active", "superseded", "stale"),
  Schema.Array(FactStatus).pipe(Schema.minItems(1), Schema.maxItems(3))
).annotations({
  message: () => ({ message: statusMessage, override: true }),
  description: "active, superseded, stale, a list of them, or \"any\"",
  // The values are in the description; the listing does not spell them out twice.
  jsonSchema: {
    description: "active, superseded, stale, a list of them, or \"any\"",
    type: ["string", "array"],
    default: "active"
  }
})

/** relay_search: a full-text query, filters, and a page of at most 50 hits (see domain/search.ts). */
export const SearchInput = Schema.Struct({
  query: SearchQuery,
  status: Schema.optionalWith(SearchStatus, { default: () => "active" as const }),
  written_by: Schema.optional(AgentName.annotations({ description: "Only this writer's facts" })),
  session_id: Schema.optional(SessionId.annotations({ description: "Only this session's facts" })),
  since: Schema.optional(IsoTimestamp.annotations({ description: "Only after this time (with zone)" })),
  until: Schema.optional(IsoTimestamp.annotations({ description: "Only at or before this time (with zone)" })),
  limit: pageLimit(10, 50),
  cursor: Schema.optional(Cursor),
  max_tokens: MaxTokens
})
