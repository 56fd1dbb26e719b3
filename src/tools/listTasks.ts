import { Effect } from "effect"
import { currentBudget, fitting } from "../domain/paging.js"
import { ListTasksInput, ListTasksOutput, TasksCursor } from "../domain/tasks.js"
import { TaskStore } from "../services/TaskStore.js"
import { renderListTasks } from "./render/tasks.js"
import { defineTool, readOnly } from "./Tool.js"

export const listTasks = defineTool({
  name: "relay_list_tasks",
  description: "Tasks, newest first",
  annotations: readOnly("List tasks"),
  unlisted: ["claimed_by", "limit"],
  input: ListTasksInput,
  output: ListTasksOutput,
  render: renderListTasks,
  handler: Effect.fn("relay/tools/relay_list_tasks")(function*(input) {
    const after = yield* TasksCursor.decode(input.cursor)
    const page = yield* (yield* TaskStore).list({
      status: input.status ?? null,
      claimedBy: input.claimed_by ?? null,
      thread: input.thread ?? null,
      limit: input.limit,
      after
    })
    const kept = page.tasks.slice(0, fitting(page.tasks, yield* currentBudget()))
    const last = kept[kept.length - 1]
    return {
      tasks: kept,
      totals: page.totals,
      next_cursor: (page.more || kept.length < page.tasks.length) && last !== undefined
        ? TasksCursor.encode({ createdAt: Date.parse(last.created_at), id: last.id })
        : null
    }
  })
})
