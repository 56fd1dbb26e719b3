/**
 * What `npm run task` does, apart from its edge, so the demo approves through this very code path:
 * `approve <task id>`, `reject <task id>` and `pending` (the tasks awaiting a person's approval),
 * on the graph of the configured settings (or `--workspace` / `--graph`).
 */
import { Effect, Schema } from "effect"
import { userInfo } from "node:os"
import { parseArgs } from "node:util"
import { AgentName } from "../domain/ids.js"
import { WholeTaskId } from "../domain/tasks.js"
import { TaskStore } from "../services/TaskStore.js"
import { CliFailure } from "./common.js"

export const taskUsage =
  "usage: npm run task -- approve <task id> | reject <task id> | pending  [--by <your name>] [--workspace <w> | --graph <g>]"

const usage = (why: string) => new CliFailure({ message: `${why}\n${taskUsage}`, exitCode: 2 })

/** The person deciding: --by, else the login name when it is a valid name, else "person". */
const decider = (by: string | undefined) => {
  const login = (() => {
    try {
      return userInfo().username
    } catch {
      return "person"
    }
  })()
  return Schema.decode(AgentName)(by ?? login).pipe(
    Effect.orElse(() => by === undefined ? Effect.succeed("person") : Effect.fail(usage("--by has the wrong form")))
  )
}

export interface TaskCommand {
  readonly command: "approve" | "reject" | "pending"
  readonly id: string | null
  readonly by: string
  readonly graph: string | undefined
  readonly workspace: string | undefined
}

export const parseTaskCommand = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const { positionals, values } = yield* Effect.try({
      try: () =>
        parseArgs({
          args: [...args],
          allowPositionals: true,
          options: { by: { type: "string" }, workspace: { type: "string" }, graph: { type: "string" } }
        }),
      catch: () => usage("unknown option")
    })
    const command = positionals[0]
    if (command !== "approve" && command !== "reject" && command !== "pending") {
      return yield* usage(command === undefined ? "no command" : "unknown command")
    }
    const id = command === "pending"
      ? null
      : yield* Schema.decodeUnknown(WholeTaskId)(positionals[1]).pipe(
        Effect.mapError(() => usage(`${command} needs the task's whole id`))
      )
    const out: TaskCommand = {
      command,
      id,
      by: yield* decider(values.by),
      graph: values.graph,
      workspace: values.workspace
    }
    return out
  })

/** Runs a parsed command on the TaskStore given; answers the lines to print. */
export const runTaskCommand = (c: TaskCommand) =>
  Effect.gen(function*() {
    const store = yield* TaskStore
    if (c.command === "pending") {
      const page = yield* store.list({
        status: "awaiting_approval",
        claimedBy: null,
        thread: null,
        limit: 100,
        after: null
      })
      if (page.tasks.length === 0) return ["no task awaits approval"]
      return page.tasks.map((t) =>
        `${t.id}  by ${t.written_by}  ${JSON.stringify(t.title)}${
          t.detail === null ? "" : `  ${JSON.stringify(t.detail)}`
        }`
      )
    }
    const task = yield* store.decide(c.id!, c.command === "approve", c.by).pipe(
      Effect.catchTags({
        TaskNotFound: () => new CliFailure({ message: "no task has that id", exitCode: 1 }),
        InvalidInput: (e) => new CliFailure({ message: e.message.replace(/^task_id: /, ""), exitCode: 1 })
      })
    )
    return [
      `${c.command === "approve" ? "approved" : "rejected"} by ${c.by}: ${task.id} ${
        JSON.stringify(task.title)
      } (now ${task.status})`
    ]
  })
