import { Effect } from "effect"
import { FinishTaskInput, FinishTaskOutput } from "../domain/tasks.js"
import { SecretScanner } from "../services/SecretScanner.js"
import { TaskStore } from "../services/TaskStore.js"
import { renderFinishTask } from "./render/tasks.js"
import { defineTool } from "./Tool.js"

export const finishTask = defineTool({
  name: "relay_finish_task",
  description: "End your claim",
  annotations: {
    title: "Finish a task",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false
  },
  input: FinishTaskInput,
  output: FinishTaskOutput,
  render: renderFinishTask,
  handler: Effect.fn("relay/tools/relay_finish_task")(function*(input) {
    const note = input.note?.trim() ?? null
    if (note !== null) yield* (yield* SecretScanner).check("note", note)
    const { repeat, run, task } = yield* (yield* TaskStore).finish({
      taskId: input.task_id,
      claimedBy: input.claimed_by,
      fence: input.fencing_token,
      outcome: input.outcome,
      note
    })
    return { task, outcome: input.outcome, already_finished: repeat, ...(run === null ? {} : { procedure_run: run }) }
  })
})
