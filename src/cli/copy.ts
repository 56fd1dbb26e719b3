/**
 * `npm run copy -- --to NAME [--workspace W | --graph SRC]`: a snapshot of the graph (RELAY_GRAPH
 * unless named) as a new graph NAME of the same database, with FalkorDB's GRAPH.COPY: everything,
 * indexes and briefing cursors included, as it stood when the copy began, while assistants keep
 * writing to the original. Before a risky merge, or to try something on a copy. On a cluster it
 * refuses (export and import do the same there, graph by graph).
 */
import { Console, Effect } from "effect"
import { parseArgs } from "node:util"
import { GraphDatabase } from "../services/GraphDatabase.js"
import { Settings } from "../services/Settings.js"
import { CliFailure, runCli } from "./common.js"
import { chosenGraph, stackOn, unreachable } from "./transferGraph.js"

const USAGE = "usage: npm run copy -- --to <graph> [--workspace <workspace> | --graph <graph>]"

const main = Effect.gen(function*() {
  const { values } = yield* Effect.try({
    try: () =>
      parseArgs({
        args: process.argv.slice(2),
        options: { to: { type: "string" }, workspace: { type: "string" }, graph: { type: "string" } }
      }),
    catch: () => new CliFailure({ message: USAGE, exitCode: 2 })
  })
  if (values.to === undefined) return yield* new CliFailure({ message: `--to is required\n${USAGE}`, exitCode: 2 })
  const target = yield* chosenGraph(USAGE, { graph: values.to })
  const graph = yield* chosenGraph(USAGE, values)
  const run = Effect.gen(function*() {
    const { database } = yield* Settings
    if (database._tag === "Cluster") {
      // GRAPH.COPY takes two keys, which a cluster serves only in one slot: two graphs' names rarely are.
      return yield* new CliFailure({
        message:
          "npm run copy copies a graph within one server (GRAPH.COPY), which a cluster (FALKORDB_CLUSTER_NODES) " +
          "does only for two names in one key slot: on a cluster, `npm run export` the graph and " +
          "`npm run import` the file into the new graph instead",
        exitCode: 1
      })
    }
    const db = yield* GraphDatabase
    if (db.graphName === target) {
      return yield* new CliFailure({ message: `--to names the graph being copied\n${USAGE}`, exitCode: 2 })
    }
    yield* db.copyTo(target!).pipe(
      Effect.mapError((e) =>
        e.reason === "no_graph"
          ? new CliFailure({ message: `graph ${db.graphName} holds nothing to copy`, exitCode: 1 })
          : e.detail.includes("already exists")
          ? new CliFailure({ message: `graph ${target} already exists: name a new graph with --to`, exitCode: 1 })
          : e.reason === "unreachable" || e.reason === "timeout" || e.reason === "refused_login"
          ? e
          // The operator's own command: what the server said (full, read-only, no GRAPH.COPY) is theirs to read.
          : new CliFailure({ message: `FalkorDB refused the copy: ${e.detail}`, exitCode: 1 })
      )
    )
    yield* Console.error(`copied graph ${db.graphName} to ${target}`)
  })
  yield* run.pipe(
    Effect.catchTag("DatabaseError", () => Effect.fail(unreachable())),
    Effect.provide(stackOn(graph))
  )
})

runCli(main)
