import { Effect } from "effect"
import { InvalidInput } from "../domain/errors.js"
import { currentBudget, type CursorKey, encodeCursor, fitting } from "../domain/paging.js"
import { ListTasksInput, ListTasksOutput } from "../domain/tasks.js"
import { TaskStore } from "../services/TaskStore.js"
import { renderListTasks } from "./render/tasks.js"
import { defineTool, readOnly } from "./Tool.js"

/** The key of a list_tasks cursor: [created_at, id] of the last task shown. */
const afterKey = (key: CursorKey | undefined) =>
  key === undefined
    ? Effect.succeed(null)
    : key.length === 2 && typeof key[0] === "number" && Number.isSafeInteger(key[0]) && typeof key[1] === "string"
    ? Effect.succeed([key[0], key[1]] as const)
    : Effect.fail(new InvalidInput({ message: "cursor: must be a next_cursor returned by this tool" }))

export const listTasks = defineTool({
  name: "relay_list_tasks",
  description: "Tasks, newest first",
  annotations: readOnly("List tasks"),
  unlisted: ["claimed_by", "limit"],
  input: ListTasksInput,
  output: ListTasksOutput,
  render: renderListTasks,
  handler: Effect.fn("relay/tools/relay_list_tasks")(function*(input) {
    const after = yield* afterKey(input.cursor)
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
        ? encodeCursor([Date.parse(last.created_at), last.id])
        : null
    }
  })
})
