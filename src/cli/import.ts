/**
 * `npm run import -- memory.jsonl --graph NAME [--merge]` (or `--workspace W`; neither: RELAY_GRAPH):
 * loads an export into an empty graph, or with --merge into one that has facts (facts and edges
 * already there are skipped). Ids and created_at are kept; the rules and the secret scanner apply,
 * and everything derived is computed again (src/layers/transfer).
 */
import { FileSystem } from "@effect/platform"
import { Console, Effect } from "effect"
import { parseArgs } from "node:util"
import { importText } from "../layers/transfer/transferText.js"
import { GraphDatabase } from "../services/GraphDatabase.js"
import { CliFailure, runCli } from "./common.js"
import { chosenGraph, stackOn, unreachable } from "./transferGraph.js"

const USAGE = "usage: npm run import -- <file.jsonl> [--graph <graph> | --workspace <workspace>] [--merge]"

const main = Effect.gen(function*() {
  const { positionals, values } = yield* Effect.try({
    try: () =>
      parseArgs({
        args: process.argv.slice(2),
        allowPositionals: true,
        options: {
          graph: { type: "string" },
          workspace: { type: "string" },
          merge: { type: "boolean", default: false }
        }
      }),
    catch: () => new CliFailure({ message: USAGE, exitCode: 2 })
  })
  const file = positionals[0]
  if (file === undefined || positionals.length > 1) return yield* new CliFailure({ message: USAGE, exitCode: 2 })
  const graph = yield* chosenGraph(USAGE, values)
  const fs = yield* FileSystem.FileSystem
  const text = yield* fs.readFileString(file).pipe(
    Effect.mapError(() => new CliFailure({ message: `cannot read ${file}`, exitCode: 1 }))
  )
  const run = Effect.gen(function*() {
    const db = yield* GraphDatabase
    const counts = yield* importText(text, { merge: values.merge })
    yield* Console.log(
      `imported into graph ${db.graphName}: ${counts.facts} fact(s), ${counts.decisions} decision(s), ` +
        `${counts.compatible} compatible record(s), ${counts.retractions} retraction(s), ${counts.confirmations} confirmation(s), ${counts.tasks} task(s), ` +
        `${counts.task_notes} task note(s); ` +
        `${counts.skipped} already there`
    )
    for (const r of counts.refused) yield* Console.log(`line ${r.line} left out: ${r.rule}`)
  })
  yield* run.pipe(
    Effect.catchTag("DatabaseError", () => Effect.fail(unreachable())),
    Effect.catchTag(
      "ImportRefused",
      (e) => Effect.fail(new CliFailure({ message: `nothing was imported: ${e.message}`, exitCode: 1 }))
    ),
    Effect.provide(stackOn(graph))
  )
})

runCli(main)
