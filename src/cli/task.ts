/**
 * `npm run task -- approve <id>` / `reject <id>` / `pending`: a person's decision on tasks that need
 * approval. It is run in the person's shell, never offered to an assistant as a tool (see SECURITY.md
 * for what that separation is worth on one machine).
 */
import { Console, Effect } from "effect"
import { runCli } from "./common.js"
import { parseTaskCommand, runTaskCommand, taskUsage } from "./taskCommand.js"
import { chosenGraph, stackOn, unreachable } from "./transferGraph.js"

const main = Effect.gen(function*() {
  const command = yield* parseTaskCommand(process.argv.slice(2))
  const graph = yield* chosenGraph(taskUsage, command)
  const lines = yield* runTaskCommand(command).pipe(
    Effect.catchTag("DatabaseError", () => Effect.fail(unreachable())),
    Effect.provide(stackOn(graph))
  )
  for (const line of lines) yield* Console.log(line)
})

runCli(main)
