import { Schema } from "effect"
import { trimmedLength } from "./content.js"
import { InvalidInput } from "./errors.js"
import { Fact } from "./fact.js"
import { AgentName, FactId, SessionId } from "./ids.js"
import { Cursor, namedCursor, NextCursor, pageLimit, wholeNumber } from "./paging.js"
import { RequestId } from "./requestId.js"
import { SearchQuery } from "./search.js"
import { IsoFromStamp } from "./time.js"

/**
 * Procedures (issue 44): a fact of kind `procedure` whose goal is its content, with its steps and
 * preconditions as Step nodes (not facts), runs counted on write and ranked by Laplace rate
 * (domain/model/procedures.ts). At most `stepsMax` steps of at most `stepMax` characters through the
 * tools; an import may bring larger ones.
 */
export const stepsMax = 50
export const stepMax = 500
export const preconditionsMax = 20
/** Earlier versions a procedure shows (newest first): the lineage walk stops there. */
export const versionsShown = 10
/** Search matches a goal ranks at most: the procedures a find reads, whatever the memory holds. */
export const candidatesMax = 50

/**
 * relay_find_procedure's cursor over one procedure's runs: the place of the last run shown (places
 * count from 1, the oldest; the studio reads how many runs lie below from it).
 */
export const RunsCursor = namedCursor("place")

export const StepText = trimmedLength(1, stepMax, "A step")

const textList = (max: number, what: string, min = 1) =>
  Schema.Array(StepText).pipe(
    Schema.minItems(min, { message: () => `must be ${min}-${max} items` }),
    Schema.maxItems(max, { message: () => `must be ${min}-${max} items` })
  ).annotations({
    description: what,
    jsonSchema: { type: "array", items: { type: "string" }, description: what }
  })

export const RunOutcome = Schema.Literal("success", "failure")
export type RunOutcome = typeof RunOutcome.Type

const Lesson = trimmedLength(1, stepMax, "What to check first next time")

/** relay_save_fact's fields that make the fact a procedure (its content the goal). */
export const procedureFields = {
  steps: Schema.optional(textList(stepsMax, "Procedure steps")),
  preconditions: Schema.optional(textList(preconditionsMax, "Checks before step 1"))
}

export const RecordRunInput = Schema.Struct({
  procedure_id: FactId,
  outcome: RunOutcome.annotations({ description: "Result" }),
  ran_by: AgentName.annotations({ description: "Your name" }),
  failed_step: Schema.optional(wholeNumber(1, 1000, "Step number", { minimum: 1 })),
  note: Schema.optional(trimmedLength(1, 1000, "What happened, why")),
  lesson: Schema.optional(Lesson.annotations({
    description: "Check to add",
    jsonSchema: { type: "string", maxLength: stepMax, description: "Check to add" }
  })),
  steps: Schema.optional(textList(stepsMax, "New steps for that version")),
  session_id: Schema.optional(SessionId),
  request_id: Schema.optional(RequestId)
})

export const FindProcedureInput = Schema.Struct({
  goal: Schema.optional(SearchQuery.annotations({
    description: "Words",
    jsonSchema: { type: "string", maxLength: 200, description: "Words" }
  })),
  procedure_id: Schema.optional(FactId.annotations({ description: "Or one, with its runs" })),
  limit: pageLimit(3, 10),
  cursor: Schema.optional(Cursor)
})

export const RunCounts = Schema.Struct({
  success: Schema.Number,
  failure: Schema.Number,
  /** (success + 1) / (success + failure + 2), to three places. */
  rate: Schema.Number
})
export type RunCounts = typeof RunCounts.Type

export const EarlierVersion = Schema.Struct({
  id: Schema.String,
  version: Schema.Number,
  runs: RunCounts
})

export const Procedure = Schema.Struct({
  fact: Fact,
  version: Schema.Number,
  /** Mandatory before step 1; a revision's lesson first. */
  preconditions: Schema.Array(Schema.String),
  steps: Schema.Array(Schema.String),
  runs: RunCounts,
  /** Earlier versions, newest first (at most `versionsShown`), each with its own runs. */
  earlier: Schema.Array(EarlierVersion),
  /** The version that revises this one, when there is one. */
  revised_by: Schema.NullOr(Schema.String)
})
export type Procedure = typeof Procedure.Type

const runShape = <I>(time: Schema.Schema<string, I>) =>
  Schema.Struct({
    id: Schema.String,
    procedure_id: Schema.String,
    outcome: RunOutcome,
    failed_step: Schema.NullOr(Schema.Number),
    note: Schema.NullOr(Schema.String),
    ran_by: Schema.String,
    created_at: time,
    task_id: Schema.NullOr(Schema.String)
  })

export const Run = runShape(Schema.String)
export type Run = typeof Run.Type
/** A Run node's map as Cypher returns it (created_at a stamp). */
export const RunFromRow = runShape(IsoFromStamp)

export const RecordRunOutput = Schema.Struct({
  run: Run,
  runs: RunCounts,
  already_recorded: Schema.Boolean,
  /** The new version a lesson made. */
  revision: Schema.optional(Procedure)
})

export const FindProcedureOutput = Schema.Struct({
  /** Best first: by (success + 1) / (runs + 2), ties by match. */
  procedures: Schema.Array(Procedure),
  /** With procedure_id: its runs, newest first. */
  runs: Schema.optional(Schema.Array(Run)),
  note: Schema.optional(Schema.String),
  next_cursor: NextCursor
})

/** A run to record (FactStore.recordRun). */
export interface NewRun {
  readonly id: string
  readonly procedureId: string
  readonly outcome: RunOutcome
  readonly step: number | null
  readonly note: string | null
  readonly ranBy: string
}

/** A procedure version's steps to write once (FactStore.writeSteps). */
export interface StepsWrite {
  readonly id: string
  readonly version: number
  readonly lineage: ReadonlyArray<string>
  readonly preconditions: ReadonlyArray<string>
  readonly steps: ReadonlyArray<string>
}

export const notAProcedure = (field: string, id: string) =>
  new InvalidInput({ message: `${field}: fact ${id} is not a procedure (relay_save_fact with steps makes one)` })
