import { Schema } from "effect"
import { ContextCursor, contextLimit, ImpactCursor, impactLimit, staleLimit } from "./chainPaging.js"
import { FactContent, Reason, RetractReason } from "./content.js"
import { FactKind, StatusFilter } from "./fact.js"
import { AgentName, FactId, SessionId } from "./ids.js"
import { Cursor, MaxTokens, pageLimit, wholeNumber } from "./paging.js"
import { procedureFields } from "./procedures.js"
import { RequestId } from "./requestId.js"
import { buildsOnMessage, contradictsMax, revisionMessage, stillHoldsMax } from "./rules.js"
import { SearchQuery } from "./search.js"
import { IsoTimestamp } from "./time.js"

const cursor = Schema.optional(Cursor)

const stillHoldsDescription = `With supersedes: up to ${stillHoldsMax} dependents that still hold; confirmed`

const contradictsDescription = `Up to ${contradictsMax} sibling ids it disagrees with: always a conflict`

/** relay_save_fact's fields, each with its own rule (bulk/bulkSave.ts takes some of them). */
export const SaveFactFields = Schema.Struct({
  content: FactContent,
  written_by: AgentName,
  session_id: SessionId,
  parent_fact_id: Schema.optional(
    FactId.annotations({ description: "Fact it builds on" })
  ),
  builds_on: Schema.optional(
    Schema.Array(FactId).pipe(Schema.minItems(1), Schema.maxItems(8)).annotations({
      description: "Or up to 8 parent ids",
      // The bound is in the description; the decoder enforces it.
      jsonSchema: { type: "array", items: { type: "string" }, description: "Or up to 8 parent ids" }
    })
  ),
  kind: Schema.optional(FactKind),
  contradicts: Schema.optional(
    Schema.Array(FactId).pipe(Schema.minItems(1), Schema.maxItems(contradictsMax)).annotations({
      description: contradictsDescription,
      jsonSchema: { type: "array", items: { type: "string" }, description: contradictsDescription }
    })
  ),
  supersedes: Schema.optional(FactId.annotations({ description: "Fact this replaces" })),
  reason: Schema.optional(Reason),
  still_holds: Schema.optional(
    Schema.Array(FactId).pipe(Schema.minItems(1), Schema.maxItems(stillHoldsMax)).annotations({
      description: stillHoldsDescription,
      jsonSchema: { type: "array", items: { type: "string" }, description: stillHoldsDescription }
    })
  ),
  ...procedureFields,
  request_id: Schema.optional(RequestId)
})

/** A rule's message, "field: what", as the issue at that field (callTool.ts puts the field back in front). */
const atField = (message: string) => {
  const at = message.indexOf(": ")
  return { path: [message.slice(0, at)], message: message.slice(at + 2) }
}

/** The first rule that combines fields the input breaks (the contract's message), or undefined. */
const saveFactCombination = (i: typeof SaveFactFields.Type): string | undefined =>
  i.supersedes !== undefined && i.reason === undefined
    ? revisionMessage.reason_needed
    : i.supersedes === undefined && i.reason !== undefined
    ? revisionMessage.reason_alone
    : i.supersedes === undefined && i.still_holds !== undefined
    ? revisionMessage.still_holds_alone
    : i.preconditions !== undefined && i.steps === undefined
    ? "preconditions: only a procedure (steps) has them"
    : i.parent_fact_id !== undefined && i.builds_on !== undefined
    ? buildsOnMessage.both
    : i.steps !== undefined && i.kind !== undefined
    ? "kind: a fact with steps is a procedure; give no kind"
    : undefined

/**
 * relay_save_fact's input: its fields, then the rules that combine them, so a call that breaks one
 * is refused while decoding, as any other bad field is (`invalid_input` naming the field).
 */
export const SaveFactInput = SaveFactFields.pipe(
  Schema.filter((i) => {
    const broken = saveFactCombination(i)
    return broken === undefined ? undefined : atField(broken)
  })
)

/** Thread scope: only the facts connected to this one through BUILDS_ON (layers/factStore/threadScope.ts). */
export const thread = Schema.optional(FactId.annotations({ description: "Root fact id" }))

/** Time travel: the read answers as the memory stood at this time. */
const asOf = Schema.optional(IsoTimestamp.annotations({ description: "As of (ISO time)" }))

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
  session_id: Schema.optional(SessionId.annotations({ description: "Session filter" })),
  status: StatusFilter,
  written_by: Schema.optional(AgentName.annotations({ description: "Writer filter" })),
  thread,
  as_of: asOf,
  cursor,
  max_tokens: MaxTokens
})

export const ConflictsInput = Schema.Struct({
  limit: pageLimit(20, 100),
  cursor,
  thread,
  as_of: asOf,
  max_tokens: MaxTokens
})

const outcomeDescription = "compatible: fact_ids all stand"

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
  winner_fact_id: Schema.optional(FactId.annotations({ description: "Fact that stands" })),
  loser_fact_id: Schema.optional(FactId.annotations({ description: "Fact it overrules" })),
  fact_ids: Schema.optional(
    Schema.Array(FactId).pipe(
      Schema.minItems(2, { message: () => "must be 2 to 10 fact ids" }),
      Schema.maxItems(10, { message: () => "must be 2 to 10 fact ids" })
    ).annotations({
      description: "2-10 siblings (compatible)",
      // "2-10" is in the description; minItems/maxItems would say it again in the listing.
      jsonSchema: { type: "array", items: { type: "string" }, description: "2-10 siblings (compatible)" }
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

export const ConfirmFactInput = Schema.Struct({
  fact_id: FactId,
  reason: Reason,
  confirmed_by: AgentName,
  request_id: Schema.optional(RequestId)
})

export const BriefingInput = Schema.Struct({
  my_name: AgentName.annotations({ description: "Your name; skips your facts" }),
  since: Schema.optional(IsoTimestamp.annotations({
    description: "Omit to resume, or an ISO time"
  })),
  limit: pageLimit(50, 200, "Page size per list"),
  thread,
  cursor: Schema.optional(Cursor.annotations({
    description: "A next_cursor",
    jsonSchema: { type: "string", description: "A next_cursor" }
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
  limit: atMost(1000, "Clusters per page"),
  facts_per_cluster: atMost(1000, "Facts per cluster"),
  cursor,
  max_tokens: MaxTokens
})

/** relay_search: a full-text query, filters, and a page of at most 50 hits (see domain/search.ts). */
const queriesDescription = "Up to 5 rephrasings in the facts' words"

export const SearchInput = Schema.Struct({
  query: SearchQuery,
  queries: Schema.optional(
    Schema.Array(SearchQuery).pipe(Schema.minItems(1), Schema.maxItems(5)).annotations({
      description: queriesDescription,
      jsonSchema: { type: "array", items: { type: "string" }, description: queriesDescription }
    })
  ),
  status: StatusFilter,
  written_by: Schema.optional(AgentName.annotations({ description: "Writer filter" })),
  session_id: Schema.optional(SessionId.annotations({ description: "Session filter" })),
  since: Schema.optional(IsoTimestamp.annotations({ description: "After (ISO time)" })),
  until: Schema.optional(IsoTimestamp.annotations({ description: "Until (ISO time)" })),
  thread,
  as_of: asOf,
  limit: pageLimit(10, 50),
  cursor: Schema.optional(Cursor),
  max_tokens: MaxTokens
})
