import { Effect } from "effect"
import { noFactWithId } from "../domain/errors.js"
import { notAProcedure } from "../domain/procedures.js"
import { requestTaskId } from "../domain/requestId.js"
import { PostTaskInput, PostTaskOutput } from "../domain/tasks.js"
import { FactStore } from "../services/FactStore.js"
import { SecretScanner } from "../services/SecretScanner.js"
import { TaskStore } from "../services/TaskStore.js"
import { ToolCall } from "../services/ToolCall.js"
import { renderPostTask } from "./render/tasks.js"
import { defineTool } from "./Tool.js"

export const postTask = defineTool({
  name: "relay_post_task",
  description: "Post work for one agent",
  annotations: { title: "Post a task", readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  unlisted: ["max_attempts", "procedure_id"],
  input: PostTaskInput,
  output: PostTaskOutput,
  render: renderPostTask,
  handler: Effect.fn("relay/tools/relay_post_task")(function*(input) {
    const title = input.title.trim()
    const detail = input.detail?.trim() ?? null
    const scanner = yield* SecretScanner
    yield* scanner.check("title", title)
    if (detail !== null) yield* scanner.check("detail", detail)
    const procedureId = input.procedure_id ?? null
    if (procedureId !== null) {
      const k = (yield* (yield* FactStore).kinds([procedureId])).get(procedureId)
      if (k === undefined) return yield* noFactWithId("procedure_id", procedureId)
      if (k.kind !== "procedure") return yield* notAProcedure("procedure_id", procedureId)
    }
    const call = yield* ToolCall
    const { existing, task } = yield* (yield* TaskStore).post({
      id: input.request_id === undefined ? call.id : requestTaskId(input.written_by, input.request_id),
      title,
      detail,
      writtenBy: input.written_by,
      about: [...new Set(input.about ?? [])],
      needsApproval: input.needs_approval,
      maxAttempts: input.max_attempts,
      procedureId
    })
    return { task, already_posted: existing }
  })
})
