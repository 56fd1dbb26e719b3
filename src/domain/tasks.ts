import { Schema } from "effect"
import { trimmedLength } from "./content.js"
import { AgentName, FactId, idOrPrefixString, TaskIdReference } from "./ids.js"
import { thread } from "./inputs.js"
import { Cursor, isText, isWhole, NextCursor, pageLimit, placeCursor, type PlaceOf, wholeNumber } from "./paging.js"
import { RequestId } from "./requestId.js"
import { IsoFromStamp } from "./time.js"

/**
 * A task's stored status. `claimed` with its lease run out is shown (and claimable) as `open`
 * (`shownStatus`); `rejected` is a person's refusal of a task that needed approval.
 */
export const TaskStatus = Schema.Literal("open", "claimed", "done", "failed", "awaiting_approval", "rejected")
export type TaskStatus = typeof TaskStatus.Type
export const taskStatuses: ReadonlyArray<TaskStatus> = TaskStatus.literals

export const FinishOutcome = Schema.Literal("done", "failed", "released")
export type FinishOutcome = typeof FinishOutcome.Type

/** A whole task id, as a person names it on the command line (npm run task). */
export const WholeTaskId = Schema.compose(
  Schema.String.pipe(
    Schema.pattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, {
      message: () => "must be a task id Relay returned"
    })
  ),
  Schema.Lowercase
).annotations({ description: "Id", jsonSchema: { type: "string", description: "Id" } })

/**
 * A task id in a tool's input: the whole id or its first 8 or more characters, as fact ids take
 * (policies/factIdPrefixes.ts puts the whole id in before the tool runs).
 */
export const TaskId = idOrPrefixString.annotations({ [TaskIdReference]: true, description: "Id or prefix" })

export const leaseDefaultSeconds = 300
export const maxAttemptsDefault = 3
/** How many facts one task may name in `about`. */
export const aboutMax = 8

export const TaskTitle = trimmedLength(1, 200, "The work")
export const TaskDetail = trimmedLength(1, 2000, "Details")
export const TaskNote = trimmedLength(1, 1000, "What you did or tried")

const FencingToken = Schema.Int.pipe(
  Schema.between(1, Number.MAX_SAFE_INTEGER),
  Schema.annotations({
    message: () => ({ message: "must be a fencing_token a claim returned", override: true }),
    description: "From your claim",
    jsonSchema: { type: "integer" }
  })
)

export const PostTaskInput = Schema.Struct({
  title: TaskTitle,
  written_by: AgentName,
  detail: Schema.optional(TaskDetail),
  about: Schema.optional(
    Schema.Array(FactId).pipe(
      Schema.maxItems(aboutMax, { message: () => `must be at most ${aboutMax} fact ids` })
    ).annotations({
      description: "Fact ids",
      jsonSchema: { type: "array", items: { type: "string" }, description: "Fact ids" }
    })
  ),
  needs_approval: Schema.optionalWith(
    Schema.Boolean.annotations({ description: "Destructive: a person approves" }),
    { default: () => false }
  ),
  max_attempts: Schema.optionalWith(
    wholeNumber(1, 10, "Tries", { maximum: 10 }),
    { default: () => maxAttemptsDefault }
  ),
  procedure_id: Schema.optional(FactId.annotations({ description: "Procedure it follows: the finish records a run" })),
  request_id: Schema.optional(RequestId)
})

/** The claimer's name; "Your name" alone: the listing is paid for on every turn. */
const ClaimerName = AgentName.annotations({ description: "Your name" })

export const ClaimTaskInput = Schema.Struct({
  claimed_by: ClaimerName,
  task_id: Schema.optional(TaskId.annotations({ description: "Left out: the oldest open task" })),
  fencing_token: Schema.optional(
    FencingToken.annotations({ jsonSchema: { type: "integer", description: "Yours: renews your lease" } })
  ),
  lease_seconds: Schema.optionalWith(
    wholeNumber(10, 3600, "Lease", { maximum: 3600, default: leaseDefaultSeconds }),
    { default: () => leaseDefaultSeconds }
  ),
  request_id: Schema.optional(RequestId)
})

export const FinishTaskInput = Schema.Struct({
  task_id: TaskId,
  claimed_by: ClaimerName,
  fencing_token: FencingToken.annotations({ jsonSchema: { type: "integer", description: "From your claim" } }),
  outcome: FinishOutcome.annotations({ description: "released: give back" }),
  note: Schema.optional(
    TaskNote.annotations({
      jsonSchema: { type: "string", maxLength: 1000, description: "What happened; why, if failed" }
    })
  )
})

/**
 * relay_list_tasks' cursor: the last task shown, by its created_at (epoch ms) and id, the list's
 * keyset newest first (layers/tasks/list.ts, and the Test layer's order).
 */
export const TasksCursor = placeCursor({ createdAt: isWhole, id: isText })
export type TaskPlace = PlaceOf<typeof TasksCursor>

export const ListTasksInput = Schema.Struct({
  status: Schema.optional(TaskStatus.annotations({ description: "Status filter" })),
  claimed_by: Schema.optional(AgentName.annotations({ description: "Holder filter" })),
  thread,
  limit: pageLimit(20, 100),
  cursor: Schema.optional(Cursor)
})

/** A task's fields, with its stamps as `time`: ISO strings in replies, stamps decoded from a row. */
const taskShape = <I>(time: Schema.Schema<string, I>) =>
  Schema.Struct({
    id: Schema.String,
    title: Schema.String,
    detail: Schema.NullOr(Schema.String),
    written_by: Schema.String,
    created_at: time,
    status: TaskStatus,
    needs_approval: Schema.Boolean,
    decided_by: Schema.NullOr(Schema.String),
    attempts: Schema.Number,
    max_attempts: Schema.Number,
    claimed_by: Schema.NullOr(Schema.String),
    lease_expires_at: Schema.NullOr(time),
    about: Schema.Array(Schema.String),
    last_note: Schema.NullOr(Schema.Struct({
      outcome: FinishOutcome,
      note: Schema.NullOr(Schema.String),
      by: Schema.String,
      created_at: time
    }))
  })

/** A task as every reply shows it: its own text, where it stands now, and the last finish's note. */
export const Task = taskShape(Schema.String)
/** A task as the graph returns it (stamps in epoch ms). */
export const TaskFromRow = taskShape(IsoFromStamp)
export type Task = typeof Task.Type

export const PostTaskOutput = Schema.Struct({ task: Task, already_posted: Schema.Boolean })

export const ClaimTaskOutput = Schema.Struct({
  task: Schema.NullOr(Task),
  fencing_token: Schema.NullOr(Schema.Number),
  lease_expires_at: Schema.NullOr(Schema.String),
  heartbeat: Schema.Boolean
})

/** The run a finish recorded of the procedure its task follows (issue 44), with that procedure's counts now. */
export const ProcedureRunOfTask = Schema.Struct({
  procedure_id: Schema.String,
  outcome: Schema.Literal("success", "failure"),
  success: Schema.Number,
  failure: Schema.Number
})

export type ProcedureRunOfTask = typeof ProcedureRunOfTask.Type

export const FinishTaskOutput = Schema.Struct({
  task: Task,
  outcome: FinishOutcome,
  already_finished: Schema.Boolean,
  procedure_run: Schema.optional(ProcedureRunOfTask)
})

/**
 * The briefing's tasks section (first page only): tasks others posted in the window, tasks others
 * hold now, failures in the window with their notes, and tasks awaiting a person's approval. Each
 * list is cut to the briefing's budget; `more` says the board holds more (relay_list_tasks).
 */
export const BriefingTasks = Schema.Struct({
  new_tasks: Schema.Array(Task),
  claimed_by_others: Schema.Array(Task),
  failures: Schema.Array(Schema.Struct({
    task: Task,
    note: Schema.NullOr(Schema.String),
    failed_by: Schema.String,
    created_at: Schema.String
  })),
  awaiting_approval: Schema.Array(Task),
  more: Schema.Boolean
})
export type BriefingTasks = typeof BriefingTasks.Type

export const TaskTotals = Schema.Struct({
  open: Schema.Number,
  claimed: Schema.Number,
  done: Schema.Number,
  failed: Schema.Number,
  awaiting_approval: Schema.Number,
  rejected: Schema.Number
})

export const ListTasksOutput = Schema.Struct({
  tasks: Schema.Array(Task),
  totals: TaskTotals,
  next_cursor: NextCursor
})
