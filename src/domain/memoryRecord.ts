import { Schema } from "effect"
import { FactContent, Reason, RetractReason, trimmedLength } from "./content.js"
import { StoredKindSchema } from "./fact.js"
import { AgentName, SessionId } from "./ids.js"
import { preconditionsMax, RunOutcome, stepsMax, versionsShown } from "./procedures.js"
import { aboutMax, FinishOutcome, TaskDetail, TaskNote, TaskTitle } from "./tasks.js"
import { toIso } from "./time.js"

/**
 * One line of an export file (`npm run export`): JSON Lines, the first line the header, then every
 * record in write order (created_at, then kind, then id). The fields are written in one fixed order
 * and nothing in a record depends on when or from which graph it was exported, so export -> import ->
 * export gives the same bytes. Only what a writer said is kept: statuses, fork marks and search
 * scores are derived again on import, never read from the file.
 */

/** A whole fact id as Relay makes them (lower-case UUID), never a prefix. */
const WholeId = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, {
    message: () => "must be a whole lower-case id as Relay writes it"
  })
)

/** A stamp exactly as `toIso` writes it (UTC, milliseconds), so it decodes to one instant and back to the same text. */
const ExactStamp = Schema.String.pipe(
  Schema.filter((s) => {
    const millis = Date.parse(s)
    return (Number.isFinite(millis) && toIso(millis) === s) ||
      "must be an ISO 8601 UTC time with milliseconds, as exported (2026-01-31T12:00:00.000Z)"
  })
)

export const exportFormat = "relay-memory"
/**
 * 2 (issue 44): a procedure's steps, preconditions, version and lineage on its fact record, its runs
 * as `run` records, and the procedure a task follows. A file of version 1 (none of these) still imports.
 */
export const exportVersion = 2
export const exportVersions = [1, 2] as const

export const HeaderRecord = Schema.Struct({
  format: Schema.Literal(exportFormat),
  version: Schema.Literal(...exportVersions)
})

/**
 * A step or check as a file may carry it: the tools take 500 characters, an import as much as a
 * fact's content (2,000), for runbooks written elsewhere; the counts are the tools' own (a revision's
 * lesson is one check more).
 */
export const importedStepMax = 2000
const ImportedStep = trimmedLength(1, importedStepMax, "A step")

/** A procedure's own parts (fact_kind `procedure`), each list in its stored order. */
export const ProcedurePart = Schema.Struct({
  version: Schema.Int.pipe(Schema.between(1, 1_000_000)),
  /** The earlier versions' ids, newest first, as stored (at most versionsShown). */
  lineage: Schema.Array(WholeId).pipe(Schema.maxItems(versionsShown)),
  preconditions: Schema.Array(ImportedStep).pipe(Schema.maxItems(preconditionsMax + 1)),
  steps: Schema.Array(ImportedStep).pipe(Schema.maxItems(stepsMax))
})
export type ProcedurePart = typeof ProcedurePart.Type

export const FactRecord = Schema.Struct({
  kind: Schema.Literal("fact"),
  id: WholeId,
  created_at: ExactStamp,
  written_by: AgentName,
  session_id: SessionId,
  parent_id: Schema.NullOr(WholeId),
  /** The facts it builds on after parent_id (ALSO_ON), for a fact on several; absent otherwise. */
  also_on: Schema.optional(Schema.Array(WholeId).pipe(Schema.minItems(1), Schema.maxItems(7))),
  content: FactContent,
  /** The `kind` the writer gave (detail, choice, warning, procedure); absent when none was given. */
  fact_kind: Schema.optional(StoredKindSchema),
  /** The siblings the writer said it contradicts (`contradicts`), sorted; absent when none. */
  contradicts: Schema.optional(Schema.Array(WholeId).pipe(Schema.minItems(1), Schema.maxItems(8))),
  /** Version 2, a procedure's only: its steps and checks (its runs are `run` records). */
  procedure: Schema.optional(ProcedurePart)
})

/** A SUPERSEDES edge: the winner stands, the loser is overruled. */
export const DecisionRecord = Schema.Struct({
  kind: Schema.Literal("decision"),
  created_at: ExactStamp,
  winner_id: WholeId,
  loser_id: WholeId,
  resolved_by: AgentName,
  reason: Reason
})

/** A COMPATIBLE edge (a confirmation that two siblings both stand), its ids in stored order (lower first). */
export const CompatibleRecord = Schema.Struct({
  kind: Schema.Literal("compatible"),
  created_at: ExactStamp,
  fact_ids: Schema.Tuple(WholeId, WholeId),
  resolved_by: AgentName,
  reason: Reason
})

export const RetractionRecord = Schema.Struct({
  kind: Schema.Literal("retraction"),
  id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  created_at: ExactStamp,
  fact_id: WholeId,
  retracted_by: AgentName,
  reason: RetractReason
})

/** A Confirmation (relay_confirm_fact): the stale fact still held, at its stamp. */
export const ConfirmationRecord = Schema.Struct({
  kind: Schema.Literal("confirmation"),
  id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  created_at: ExactStamp,
  fact_id: WholeId,
  confirmed_by: AgentName,
  reason: Reason
})

/**
 * A task as it stands, at the stamp it was posted. A claim is a lease held by an agent running
 * against the memory it was taken from: a copy has no such agent, so a claimed task is written as
 * open (its attempts kept) and takes its place in the copy's queue by when it last entered one.
 */
export const TaskRecord = Schema.Struct({
  kind: Schema.Literal("task"),
  id: WholeId,
  created_at: ExactStamp,
  written_by: AgentName,
  title: TaskTitle,
  detail: Schema.NullOr(TaskDetail),
  about: Schema.Array(WholeId).pipe(Schema.maxItems(aboutMax)),
  needs_approval: Schema.Boolean,
  max_attempts: Schema.Int.pipe(Schema.between(1, 10)),
  status: Schema.Literal("open", "done", "failed", "awaiting_approval", "rejected"),
  attempts: Schema.Int.pipe(Schema.between(0, 10)),
  decided_by: Schema.NullOr(AgentName),
  decided_at: Schema.NullOr(ExactStamp),
  last_finish: Schema.NullOr(Schema.Struct({
    outcome: FinishOutcome,
    note: Schema.NullOr(TaskNote),
    by: AgentName,
    created_at: ExactStamp
  })),
  /** Version 2: the procedure it follows (its finish records a run); absent when none. */
  procedure_id: Schema.optional(WholeId)
})

/** What an agent left when it finished a task (every failure, and any finish with a note). */
export const TaskNoteRecord = Schema.Struct({
  kind: Schema.Literal("task_note"),
  id: WholeId,
  created_at: ExactStamp,
  task_id: WholeId,
  outcome: FinishOutcome,
  note: Schema.NullOr(TaskNote),
  by: AgentName
})

/**
 * Version 2: one run of a procedure as stored (relay_record_run, or a task's finish: `task_id`). Its
 * procedure's counts are derived from the runs imported, never read from the file.
 */
export const RunRecord = Schema.Struct({
  kind: Schema.Literal("run"),
  id: WholeId,
  created_at: ExactStamp,
  procedure_id: WholeId,
  outcome: RunOutcome,
  failed_step: Schema.NullOr(Schema.Int.pipe(Schema.between(1, 1000))),
  note: Schema.NullOr(trimmedLength(1, 1000, "What happened, why")),
  ran_by: AgentName,
  task_id: Schema.NullOr(WholeId)
})

export const MemoryRecord = Schema.Union(
  FactRecord,
  DecisionRecord,
  CompatibleRecord,
  RetractionRecord,
  ConfirmationRecord,
  TaskRecord,
  TaskNoteRecord,
  RunRecord
)
export type MemoryRecord = typeof MemoryRecord.Type
export type TaskRecord = typeof TaskRecord.Type
export type TaskNoteRecord = typeof TaskNoteRecord.Type
export type RunRecord = typeof RunRecord.Type
export type FactRecord = typeof FactRecord.Type
export type DecisionRecord = typeof DecisionRecord.Type
export type CompatibleRecord = typeof CompatibleRecord.Type
export type RetractionRecord = typeof RetractionRecord.Type
export type ConfirmationRecord = typeof ConfirmationRecord.Type

/** Within one stamp (only a merged import can make two share one), records sort by kind, then by what they name. */
export const kindOrder = {
  fact: 0,
  decision: 1,
  compatible: 2,
  retraction: 3,
  task: 4,
  task_note: 5,
  // Last: it came after the others, and a position's kind number is kept in cursors.
  confirmation: 6,
  run: 7
} as const
export type RecordKind = keyof typeof kindOrder

export const recordKey = (r: MemoryRecord): string => {
  switch (r.kind) {
    case "fact":
    case "retraction":
    case "confirmation":
    case "task":
    case "task_note":
    case "run":
      return r.id
    case "decision":
      return `${r.winner_id} ${r.loser_id}`
    case "compatible":
      return `${r.fact_ids[0]} ${r.fact_ids[1]}`
  }
}

/** Write order: created_at, then kind, then key. */
export const compareRecords = (a: MemoryRecord, b: MemoryRecord): number =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ?
    1 :
    kindOrder[a.kind] - kindOrder[b.kind] || (recordKey(a) < recordKey(b) ? -1 : recordKey(a) > recordKey(b) ? 1 : 0)

/** Where a record stands in write order: its stamp, kind and key (export pages and the studio's events resume from it). */
export interface RecordPosition {
  readonly stamp: number
  readonly kind: number
  readonly key: string
}

export const positionOf = (r: MemoryRecord): RecordPosition => ({
  stamp: Date.parse(r.created_at),
  kind: kindOrder[r.kind],
  key: recordKey(r)
})

/** One record as its line, the fields in the fixed order of its Schema (no trailing newline). */
export const recordLine = (r: MemoryRecord): string => {
  switch (r.kind) {
    case "fact":
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        created_at: r.created_at,
        written_by: r.written_by,
        session_id: r.session_id,
        parent_id: r.parent_id,
        ...(r.also_on === undefined ? {} : { also_on: r.also_on }),
        content: r.content,
        ...(r.fact_kind === undefined ? {} : { fact_kind: r.fact_kind }),
        ...(r.contradicts === undefined ? {} : { contradicts: r.contradicts }),
        ...(r.procedure === undefined ? {} : {
          procedure: {
            version: r.procedure.version,
            lineage: r.procedure.lineage,
            preconditions: r.procedure.preconditions,
            steps: r.procedure.steps
          }
        })
      })
    case "decision":
      return JSON.stringify({
        kind: r.kind,
        created_at: r.created_at,
        winner_id: r.winner_id,
        loser_id: r.loser_id,
        resolved_by: r.resolved_by,
        reason: r.reason
      })
    case "compatible":
      return JSON.stringify({
        kind: r.kind,
        created_at: r.created_at,
        fact_ids: r.fact_ids,
        resolved_by: r.resolved_by,
        reason: r.reason
      })
    case "retraction":
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        created_at: r.created_at,
        fact_id: r.fact_id,
        retracted_by: r.retracted_by,
        reason: r.reason
      })
    case "confirmation":
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        created_at: r.created_at,
        fact_id: r.fact_id,
        confirmed_by: r.confirmed_by,
        reason: r.reason
      })
    case "task":
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        created_at: r.created_at,
        written_by: r.written_by,
        title: r.title,
        detail: r.detail,
        about: r.about,
        needs_approval: r.needs_approval,
        max_attempts: r.max_attempts,
        status: r.status,
        attempts: r.attempts,
        decided_by: r.decided_by,
        decided_at: r.decided_at,
        last_finish: r.last_finish === null ? null : {
          outcome: r.last_finish.outcome,
          note: r.last_finish.note,
          by: r.last_finish.by,
          created_at: r.last_finish.created_at
        },
        ...(r.procedure_id === undefined ? {} : { procedure_id: r.procedure_id })
      })
    case "task_note":
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        created_at: r.created_at,
        task_id: r.task_id,
        outcome: r.outcome,
        note: r.note,
        by: r.by
      })
    case "run":
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        created_at: r.created_at,
        procedure_id: r.procedure_id,
        outcome: r.outcome,
        failed_step: r.failed_step,
        note: r.note,
        ran_by: r.ran_by,
        task_id: r.task_id
      })
  }
}

export const headerLine = JSON.stringify({ format: exportFormat, version: exportVersion })
