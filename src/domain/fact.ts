import { Schema } from "effect"

export const FactStatus = Schema.Literal("active", "superseded", "stale")
export type FactStatus = typeof FactStatus.Type

/** A fact as every tool shows it; status is derived from edges when read, never stored. */
export const Fact = Schema.Struct({
  id: Schema.String,
  content: Schema.String,
  written_by: Schema.String,
  session_id: Schema.String,
  created_at: Schema.String.annotations({ description: "ISO 8601 UTC with milliseconds" }),
  parent_id: Schema.NullOr(Schema.String),
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
