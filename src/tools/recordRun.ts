import { Effect } from "effect"
import { InvalidInput } from "../domain/errors.js"
import { RecordRunInput, RecordRunOutput } from "../domain/procedures.js"
import { requestFactId, requestRunId } from "../domain/requestId.js"
import { FactStore } from "../services/FactStore.js"
import { SecretScanner } from "../services/SecretScanner.js"
import { ToolCall } from "../services/ToolCall.js"
import { saveProcedureVersion } from "./procedureSave.js"
import { renderRecordRun } from "./render/procedures.js"
import { defineTool } from "./Tool.js"

export const recordRun = defineTool({
  name: "relay_record_run",
  description: "A procedure's run; a failure's lesson makes a new version",
  annotations: {
    title: "Record a run",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false
  },
  // A revision's new steps and session, and the retry key (the call's own id covers the server's
  // retries): for scripts more than for a model (tokens).
  unlisted: ["steps", "session_id", "request_id"],
  input: RecordRunInput,
  output: RecordRunOutput,
  render: renderRecordRun,
  handler: Effect.fn("relay/tools/relay_record_run")(function*(input) {
    if (input.outcome === "success" && (input.failed_step !== undefined || input.lesson !== undefined)) {
      return yield* new InvalidInput({ message: "failed_step: only a failure has a failed step or a lesson" })
    }
    if (input.steps !== undefined && input.lesson === undefined) {
      return yield* new InvalidInput({ message: "steps: new steps come with a lesson (a revision)" })
    }
    const scanner = yield* SecretScanner
    const note = input.note?.trim() ?? null
    if (note !== null) yield* scanner.check("note", note)
    if (input.lesson !== undefined) yield* scanner.check("lesson", input.lesson.trim())
    yield* Effect.forEach(input.steps ?? [], (s, i) => scanner.check(`steps.${i}`, s.trim()))
    const call = yield* ToolCall
    const key = input.request_id ?? call.id
    const store = yield* FactStore
    const recorded = yield* store.recordRun({
      id: requestRunId(input.ran_by, key),
      procedureId: input.procedure_id,
      outcome: input.outcome,
      step: input.failed_step ?? null,
      note,
      ranBy: input.ran_by
    })
    if (input.lesson === undefined) {
      return { run: recorded.run, runs: recorded.runs, already_recorded: recorded.existing }
    }
    // The new version's id follows from the run's, so a retry of this call finds the version it made.
    const { procedure: revision } = yield* saveProcedureVersion({
      id: requestFactId(input.ran_by, `run:${recorded.run.id}`),
      content: null,
      writtenBy: input.ran_by,
      sessionId: input.session_id ?? input.ran_by,
      parentId: null,
      revises: { id: input.procedure_id, reason: input.lesson.trim() }
    }, { steps: input.steps ?? null, preconditions: null, field: "procedure_id" })
    return { run: recorded.run, runs: recorded.runs, already_recorded: recorded.existing, revision }
  })
})
