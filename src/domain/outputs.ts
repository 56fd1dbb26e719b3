import { Schema } from "effect"
import { Conflict, Decision, Dependent, Fact } from "./fact.js"
import { NextCursor } from "./paging.js"

export const SaveFactOutput = Schema.Struct({
  fact: Fact,
  fork: Schema.NullOr(Schema.Struct({ parent_id: Schema.String, siblings: Schema.Array(Fact) })),
  duplicate_of: Schema.NullOr(Fact)
})

export const ContextOutput = Schema.Struct({
  chain: Schema.Array(Fact),
  next_cursor: NextCursor.annotations({ description: "Pass as cursor for the facts above this page; null at the root" })
})

export const ImpactOutput = Schema.Struct({
  fact_id: Schema.String,
  dependents: Schema.Array(Dependent),
  next_cursor: NextCursor
})

export const CurrentStateOutput = Schema.Struct({ facts: Schema.Array(Fact) })

export const ConflictsOutput = Schema.Struct({ conflicts: Schema.Array(Conflict) })

export const ResolveConflictOutput = Schema.Struct({
  winner: Fact,
  loser: Fact,
  reason: Schema.String,
  resolved_by: Schema.String,
  created_at: Schema.String,
  already_resolved: Schema.Boolean,
  stale: Schema.Array(Dependent),
  stale_next_cursor: NextCursor.annotations({
    description: "More stale facts: pass as cursor to relay_get_impact with fact_id = the loser; null if none"
  })
})

export const BriefingOutput = Schema.Struct({
  as_of: Schema.String,
  since: Schema.String,
  new_facts: Schema.Array(Fact),
  decisions: Schema.Array(Decision),
  open_conflicts: Schema.Array(Conflict)
})

export const ImportantFactsOutput = Schema.Struct({
  facts: Schema.Array(Schema.Struct({ fact: Fact, score: Schema.Number }))
})

export const ClustersOutput = Schema.Struct({
  clusters: Schema.Array(Schema.Struct({ id: Schema.Number, size: Schema.Number, facts: Schema.Array(Fact) })),
  total_clusters: Schema.Number.annotations({ description: "How many clusters the whole memory has" })
})

export const ErrorOutput = Schema.Struct({
  error: Schema.Struct({ code: Schema.String, message: Schema.String })
})
