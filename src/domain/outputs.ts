import { Schema } from "effect"
import { Conflict, Decision, Dependent, Fact, Withdrawal } from "./fact.js"
import { ImportedNote } from "./imported.js"
import { NextCursor } from "./paging.js"
import { Procedure, Run } from "./procedures.js"
import { BriefingTasks } from "./tasks.js"

export const SaveFactOutput = Schema.Struct({
  fact: Fact,
  fork: Schema.NullOr(Schema.Struct({
    parent_id: Schema.String,
    siblings: Schema.Array(Fact).annotations({ description: "The most recent differing siblings, oldest first" }),
    siblings_total: Schema.Number.annotations({ description: "How many differing siblings there are in all" })
  })),
  duplicate_of: Schema.NullOr(Fact),
  /** Only for a fact on several parents (builds_on) that forks or repeats under one after the first. */
  also_under: Schema.optional(Schema.Array(Schema.Struct({
    parent_id: Schema.String,
    siblings: Schema.Array(Fact),
    siblings_total: Schema.Number,
    duplicate_of: Schema.NullOr(Fact)
  }))),
  /** Only for a choice with differing siblings it does not fork with (the fork rule let them pass). */
  compared: Schema.optional(Schema.Struct({
    siblings: Schema.Array(Fact).annotations({ description: "Differing siblings compared and not in conflict" }),
    siblings_total: Schema.Number
  })),
  /** Only for a procedure (steps given): its steps, checks and runs as saved. */
  procedure: Schema.optional(Procedure),
  /** Only when some: facts in other threads that say nearly the same (issue 41 point 4), text cut at 80 characters. */
  links: Schema.optional(
    Schema.Array(Schema.Struct({ fact_id: Schema.String, text: Schema.String })).annotations({
      description: "Facts in other threads that say nearly the same: builds_on or supersedes one, or leave them"
    })
  ),
  /** Only when the save revised a fact (`supersedes`). */
  revision: Schema.optional(Schema.Struct({
    superseded: Fact,
    reason: Schema.String,
    stale: Schema.Array(Dependent).annotations({ description: "What this revision made stale (not what was already)" }),
    stale_total: Schema.Number,
    stale_next_cursor: NextCursor.annotations({
      description:
        "More stale facts: pass as cursor to relay_get_impact with fact_id = the superseded fact; null if none"
    }),
    still_holds: Schema.optional(
      Schema.Array(Fact).annotations({ description: "The still_holds named: confirmed by the writer, current" })
    )
  }))
})

export const ImpactOutput = Schema.Struct({
  fact_id: Schema.String,
  dependents: Schema.Array(Dependent),
  next_cursor: NextCursor
})

export const CurrentStateOutput = Schema.Struct({
  facts: Schema.Array(Fact),
  /** Facts between this page's oldest and newest (or older, on a last page) that `status` left out, up to 1,000. */
  left_out: Schema.optional(Schema.Number),
  next_cursor: NextCursor
})

export const ConflictsOutput = Schema.Struct({ conflicts: Schema.Array(Conflict), next_cursor: NextCursor })

/** Why, by whom and when a resolution was made. */
const decidedFields = { reason: Schema.String, resolved_by: Schema.String, created_at: Schema.String }

/** What every resolution answers besides its facts: why, by whom, when, and what it left stale. */
const resolutionFields = {
  ...decidedFields,
  already_resolved: Schema.Boolean,
  stale: Schema.Array(Dependent),
  stale_next_cursor: NextCursor.annotations({
    description: "More stale facts: pass as cursor to relay_get_impact with fact_id = the loser; null if none"
  })
}

export const ResolveConflictOutput = Schema.Struct({
  outcome: Schema.Literal("supersede", "compatible"),
  winner: Schema.optional(Fact),
  loser: Schema.optional(Fact),
  facts: Schema.optional(
    Schema.Array(Fact).annotations({
      description: "The facts recorded compatible, in the order named (outcome compatible)"
    })
  ),
  ...resolutionFields
})

/** What a supersede outcome answers: ResolveConflictOutput with its winner and loser present. */
export const SupersedeOutput = Schema.Struct({
  outcome: Schema.Literal("supersede"),
  winner: Fact,
  loser: Fact,
  ...resolutionFields
})

export const RetractFactOutput = Schema.Struct({
  retraction_id: Schema.String,
  fact: Fact,
  reason: Schema.String,
  retracted_by: Schema.String,
  created_at: Schema.String,
  already_retracted: Schema.Boolean,
  stale: Schema.Array(Dependent),
  stale_next_cursor: NextCursor.annotations({
    description: "More stale facts: pass as cursor to relay_get_impact on this fact; null if none"
  })
})

export const ConfirmFactOutput = Schema.Struct({
  confirmation_id: Schema.String,
  fact: Fact,
  reason: Schema.String,
  confirmed_by: Schema.String,
  created_at: Schema.String,
  already_confirmed: Schema.Boolean.annotations({
    description: "The fact was current again already: the latest confirmation is answered"
  }),
  refreshed: Schema.Number.annotations({ description: "Facts below it this call made current again" })
})

export const BriefingOutput = Schema.Struct({
  as_of: Schema.String,
  since: Schema.String,
  // What must not be missed first (issue 41): a reader that stops early has read it.
  decisions: Schema.Array(Decision),
  retractions: Schema.Array(Withdrawal),
  open_conflicts: Schema.Array(Conflict).annotations({
    description: "Open conflicts that gained a fact in this window"
  }),
  unchanged_conflicts: Schema.Number.annotations({
    description: "Open conflicts of this page with no new fact (relay_detect_conflicts lists them)"
  }),
  tasks: BriefingTasks,
  /** Issue 44, the first page's only, when there is any: warnings and failed runs by others in the window. */
  procedures: Schema.optional(Schema.Struct({ warnings: Schema.Array(Fact), failed_runs: Schema.Array(Run) })),
  new_facts: Schema.Array(Fact),
  imported: Schema.optional(Schema.Array(ImportedNote)).annotations({
    description: "Imports made in this window and the decisions, retractions and confirmations they brought"
  }),
  next_cursor: NextCursor
})

export const ImportantFactsOutput = Schema.Struct({
  facts: Schema.Array(Schema.Struct({ fact: Fact, score: Schema.Number })),
  /** The scores are as of this instant (null: an empty memory): facts written since are not ranked yet. */
  as_of: Schema.NullOr(Schema.String),
  next_cursor: NextCursor
})

export const ClustersOutput = Schema.Struct({
  clusters: Schema.Array(Schema.Struct({
    id: Schema.Number,
    size: Schema.Number,
    /** Its oldest fact's text, cut at 80 characters. */
    label: Schema.String,
    /** Its oldest fact: pass it as `thread` to read this thread. */
    thread: Schema.String,
    /** Its newest fact's created_at. */
    last_activity: Schema.String,
    /** Forked parents in it with an open conflict now. */
    open_conflicts: Schema.Number,
    facts: Schema.Array(Fact)
  })),
  total_clusters: Schema.Number.annotations({ description: "How many clusters the whole memory has" }),
  next_cursor: NextCursor
})

export const ErrorOutput = Schema.Struct({
  error: Schema.Struct({ code: Schema.String, message: Schema.String })
})

/** One decision a search hit took part in, with the other fact once and short (its id leads to the rest). */
const LostTo = Schema.Struct({
  winner_id: Schema.String,
  winner_content: Schema.String.annotations({ description: "The winner's text, cut at 160 characters" }),
  ...decidedFields
})
/** Why a fact of a context page is superseded: the decision it lost, named by the fact's id. */
const ChainDecision = Schema.Struct({ fact_id: Schema.String, ...LostTo.fields })
export type ChainDecision = typeof ChainDecision.Type

export const ContextOutput = Schema.Struct({
  chain: Schema.Array(Fact),
  superseded_by: Schema.Array(ChainDecision).annotations({
    description: "The decisions the page's superseded facts lost (up to 3 each), oldest first"
  }),
  next_cursor: NextCursor.annotations({ description: "Pass as cursor for the facts above this page; null at the root" })
})

const WonOver = Schema.Struct({
  loser_id: Schema.String,
  loser_content: Schema.String.annotations({ description: "The loser's text, cut at 160 characters" }),
  ...decidedFields
})

export const SearchHit = Schema.Struct({
  fact: Fact,
  score: Schema.Number.annotations({ description: "Text relevance; higher is better" }),
  superseded_by: Schema.Array(LostTo).annotations({ description: "The decisions this fact lost (up to 3)" }),
  supersedes: Schema.Array(WonOver).annotations({ description: "The decisions this fact won (up to 3)" }),
  weak: Schema.optional(Schema.Boolean.annotations({
    description: "Matched words carrying under half the query's weight: likely not the answer"
  })),
  /** The fact's kind when it is a warning or a procedure (issue 44): a warning is listed first. */
  kind: Schema.optional(Schema.Literal("warning", "procedure"))
})
export type SearchHit = typeof SearchHit.Type

export const SearchOutput = Schema.Struct({
  hits: Schema.Array(SearchHit),
  /** Only when every hit of the page is weak: what to do about it. */
  note: Schema.optional(Schema.String),
  /** A one-page answer under a status filter: other matches it left out (stale, superseded, retracted), up to 1,000. */
  left_out: Schema.optional(Schema.Number),
  next_cursor: NextCursor
})
