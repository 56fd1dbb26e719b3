import { Schema } from "effect"

export const factStatuses = ["active", "superseded", "stale", "retracted"] as const
export const FactStatus = Schema.Literal(...factStatuses)
export type FactStatus = typeof FactStatus.Type

const statusDescription = "Or a list"

/**
 * The `status` filter of list reads: a status, a list of them, or "any"; active when left out, so
 * a read of what is current shows only what is current. Decodes to the statuses, null for any.
 */
export const StatusFilter = Schema.optionalWith(
  Schema.Union(
    Schema.Literal("any", ...factStatuses),
    Schema.Array(FactStatus).pipe(Schema.minItems(1), Schema.maxItems(factStatuses.length))
  ).annotations({
    message: () => ({
      message: `must be "any", a status (${factStatuses.join(", ")}) or a list of them`,
      override: true
    }),
    description: statusDescription,
    // A closed set a model reads as one (issue 41): enums, in an anyOf of single types and arrays
    // with items, the form Ajv strict, OpenAI's and Gemini's schemas all take.
    jsonSchema: {
      description: statusDescription,
      anyOf: [{ type: "string", enum: ["any", ...factStatuses] }, { type: "array", items: { type: "string" } }],
      default: "active"
    }
  }),
  { default: () => "active" as const }
)

/** The statuses a filter admits; null: every status. */
export const filterStatuses = (
  status: "any" | FactStatus | ReadonlyArray<FactStatus>
): ReadonlyArray<FactStatus> | null => status === "any" ? null : typeof status === "string" ? [status] : status

const kindDescription = "choice: an option; conflicts with siblings sharing 2+ words. detail: adds to parent; " +
  "conflicts only via contradicts. warning: what not to do. " +
  "Omitted: conflicts with differing kind-less siblings"

/**
 * What a fact says of its parent: `detail` adds to it (in a conflict only with a sibling it names in
 * `contradicts`, or a choice about the same thing), `choice` is one answer where others are possible
 * (in a conflict with any sibling it shares two stemmed terms with). Left out: the seed's rule, every
 * differing kind-less sibling forks (see domain/model/conflicts.ts). Stored on the fact; not shown in
 * Fact (the conflicts it makes are). An enum in the listing: a model that writes "Detail" is told.
 */
export const FactKind = Schema.Literal("detail", "choice", "warning").annotations({
  description: kindDescription,
  jsonSchema: { type: "string", enum: ["detail", "choice", "warning"], description: kindDescription }
})
export type FactKind = typeof FactKind.Type

/**
 * What a fact may be stored as: a FactKind, or `procedure` (relay_save_fact with steps).
 * Every kind but `choice` forks as a detail does (domain/model/conflicts.ts).
 */
export type StoredKind = FactKind | "procedure"

/** A stored kind as an export file and a row carry it. */
export const StoredKindSchema = Schema.Literal("detail", "choice", "warning", "procedure")

/**
 * A fact as every tool shows it; status is derived from edges when read, never stored. Precedence:
 * retracted > superseded > stale > active.
 */
export const Fact = Schema.Struct({
  id: Schema.String,
  content: Schema.String,
  written_by: Schema.String,
  session_id: Schema.String,
  created_at: Schema.String.annotations({ description: "ISO 8601 UTC with milliseconds" }),
  parent_id: Schema.NullOr(Schema.String),
  /** Only for a fact on several parents: all of them, parent_id first. */
  builds_on: Schema.optional(Schema.Array(Schema.String)),
  status: FactStatus
})
export type Fact = typeof Fact.Type

export const Dependent = Schema.Struct({ fact: Fact, distance: Schema.Number })
export type Dependent = typeof Dependent.Type

/**
 * One forked parent and its children that are not superseded, newest first; they say at least two
 * different things. `children` is one page of at most `conflictChildrenShown`; `children_total` counts them all.
 */
export const Conflict = Schema.Struct({
  parent: Fact,
  children: Schema.Array(Fact),
  children_total: Schema.Number
})
export type Conflict = typeof Conflict.Type

export const Decision = Schema.Struct({
  winner: Fact,
  loser: Fact,
  reason: Schema.String,
  resolved_by: Schema.String,
  created_at: Schema.String
})
export type Decision = typeof Decision.Type

/** A fact withdrawn (relay_retract_fact), as a briefing tells it: the fact (now retracted) and why. */
export const Withdrawal = Schema.Struct({
  fact: Fact,
  reason: Schema.String,
  retracted_by: Schema.String,
  created_at: Schema.String
})
export type Withdrawal = typeof Withdrawal.Type
