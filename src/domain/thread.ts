import { Schema } from "effect"
import { Fact } from "./fact.js"
import { FactId } from "./ids.js"
import { Cursor, NextCursor, pageLimit } from "./paging.js"
import { IsoTimestamp } from "./time.js"

/** A thread (the tree of facts under one root) as the Mermaid resource and the studio read it. */
export const ThreadInput = Schema.Struct({
  fact_id: FactId,
  limit: pageLimit(200, 500),
  cursor: Schema.optional(Cursor),
  as_of: Schema.optional(IsoTimestamp.annotations({ description: "As of (ISO time)" }))
})

export const ThreadDecision = Schema.Struct({
  winner_id: Schema.String,
  loser_id: Schema.String,
  reason: Schema.String,
  resolved_by: Schema.String,
  created_at: Schema.String
})
export type ThreadDecision = typeof ThreadDecision.Type

export const ThreadOutput = Schema.Struct({
  root_id: Schema.String,
  facts: Schema.Array(Fact),
  decisions: Schema.Array(ThreadDecision),
  next_cursor: NextCursor
})
export type ThreadOutput = typeof ThreadOutput.Type
