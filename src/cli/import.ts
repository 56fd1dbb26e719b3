/**
 * `npm run import -- memory.jsonl --graph NAME [--merge] [--by NAME] [--keep-approvals]` (or
 * `--workspace W`; neither: RELAY_GRAPH): loads an export into an empty graph, or with --merge into
 * one that has facts (facts and edges already there are skipped, so a rerun finishes an import that
 * stopped). Ids and created_at are kept; the rules, the stamp window and the secret scanner apply,
 * and everything derived is computed again (src/layers/transfer). Progress goes to stderr.
 */
import { FileSystem } from "@effect/platform"
import { Console, Effect, Schema } from "effect"
import { parseArgs } from "node:util"
import { AgentName } from "../domain/ids.js"
import { GraphDatabase } from "../services/GraphDatabase.js"
import { Transfer } from "../services/Transfer.js"
import { CliFailure, runCli } from "./common.js"
import { stampAhead } from "./stampAhead.js"
import { chosenGraph, stackOn, unreachable } from "./transferGraph.js"

const USAGE = "usage: npm run import -- <file.jsonl> [--graph <graph> | --workspace <workspace>] [--merge] " +
  "[--by <your name>] [--keep-approvals]"

const main = Effect.gen(function*() {
  const { positionals, values } = yield* Effect.try({
    try: () =>
      parseArgs({
        args: process.argv.slice(2),
        allowPositionals: true,
        options: {
          graph: { type: "string" },
          workspace: { type: "string" },
          merge: { type: "boolean", default: false },
          by: { type: "string" },
          "keep-approvals": { type: "boolean", default: false }
        }
      }),
    catch: () => new CliFailure({ message: USAGE, exitCode: 2 })
  })
  const file = positionals[0]
  if (file === undefined || positionals.length > 1) return yield* new CliFailure({ message: USAGE, exitCode: 2 })
  const graph = yield* chosenGraph(USAGE, values)
  const by = values.by ?? process.env["USER"] ?? "unknown"
  if (!Schema.is(AgentName)(by)) {
    return yield* new CliFailure({
      message: `--by must be a name as a writer's (1-100 characters)\n${USAGE}`,
      exitCode: 2
    })
  }
  const ahead = yield* stampAhead
  const fs = yield* FileSystem.FileSystem
  const text = yield* fs.readFileString(file).pipe(
    Effect.mapError(() => new CliFailure({ message: `cannot read ${file}`, exitCode: 1 }))
  )
  let reported = 0
  const run = Effect.gen(function*() {
    const db = yield* GraphDatabase
    const counts = yield* (yield* Transfer).importText(text, {
      merge: values.merge,
      by,
      ahead,
      approvals: values["keep-approvals"],
      progress: (p) => {
        // About every 10,000 lines, and the end once (a last line that fills a batch reports it twice).
        if (p.line === reported || (p.line < p.lines && p.line - reported < 10_000)) return Effect.void
        reported = p.line
        return Console.error(`import: ${p.line} of ${p.lines} lines, ${p.facts} fact(s) written`)
      }
    })
    yield* Console.log(
      `imported into graph ${db.graphName}: ${counts.facts} fact(s), ${counts.decisions} decision(s), ` +
        `${counts.compatible} compatible record(s), ${counts.retractions} retraction(s), ${counts.confirmations} confirmation(s), ${counts.tasks} task(s), ` +
        `${counts.task_notes} task note(s), ${counts.runs} run(s); ` +
        `${counts.skipped} already there; import record ${counts.importId} (by ${by})`
    )
    for (const r of counts.refused) yield* Console.log(`line ${r.line} left out: ${r.rule}`)
  })
  yield* run.pipe(
    // Only a connection that never answered is "could not be reached"; a statement that failed names itself.
    Effect.catchTag("DatabaseError", (e) =>
      Effect.fail(
        e.reason === "unreachable" || e.reason === "refused_login" || e.reason === "no_module"
          ? unreachable()
          : new CliFailure({
            message: `nothing was imported: the database failed a statement before the first write (${e.reason}); ` +
              "run the same import again",
            exitCode: 1
          })
      )),
    Effect.catchTag(
      "ImportRefused",
      (e) => Effect.fail(new CliFailure({ message: `nothing was imported: ${e.message}`, exitCode: 1 }))
    ),
    Effect.catchTag(
      "ImportStopped",
      (e) => Effect.fail(new CliFailure({ message: `import ${e.message}`, exitCode: 1 }))
    ),
    Effect.provide(stackOn(graph))
  )
})

runCli(main)
