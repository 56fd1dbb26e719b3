/**
 * `npm run export -- --out memory.jsonl [--workspace W | --graph NAME]`: writes every fact, decision,
 * compatible record and retraction of the graph (RELAY_GRAPH unless named) to a JSON Lines file in
 * write order, content byte-exact (src/domain/memoryRecord.ts). `--out -` writes to stdout.
 */
import { FileSystem } from "@effect/platform"
import { Console, Effect, Stream } from "effect"
import { parseArgs } from "node:util"
import { GraphDatabase } from "../services/GraphDatabase.js"
import { Transfer } from "../services/Transfer.js"
import { CliFailure, runCli } from "./common.js"
import { chosenGraph, stackOn, unreachable } from "./transferGraph.js"

const USAGE = "usage: npm run export -- --out <file.jsonl | -> [--workspace <workspace> | --graph <graph>]"

const main = Effect.gen(function*() {
  const { values } = yield* Effect.try({
    try: () =>
      parseArgs({
        args: process.argv.slice(2),
        options: { out: { type: "string" }, workspace: { type: "string" }, graph: { type: "string" } }
      }),
    catch: () => new CliFailure({ message: USAGE, exitCode: 2 })
  })
  const out = values.out
  if (out === undefined) return yield* new CliFailure({ message: `--out is required\n${USAGE}`, exitCode: 2 })
  const graph = yield* chosenGraph(USAGE, values)
  const fs = yield* FileSystem.FileSystem
  const run = Effect.gen(function*() {
    const db = yield* GraphDatabase
    const lines = (yield* Transfer).exportLines
    let count = -1
    const counted = lines.pipe(Stream.tap(() => Effect.sync(() => count++)))
    if (out === "-") {
      yield* Stream.runForEach(counted, (line) => Effect.sync(() => process.stdout.write(line)))
    } else {
      yield* counted.pipe(Stream.encodeText, Stream.run(fs.sink(out)))
    }
    yield* Console.error(`exported ${count} record(s) of graph ${db.graphName}${out === "-" ? "" : ` to ${out}`}`)
  })
  yield* run.pipe(
    Effect.catchTag("DatabaseError", () => Effect.fail(unreachable())),
    Effect.catchTag(
      "SystemError",
      (e) => Effect.fail(new CliFailure({ message: `cannot write ${out}: ${e.reason}`, exitCode: 1 }))
    ),
    Effect.provide(stackOn(graph))
  )
})

runCli(main)
