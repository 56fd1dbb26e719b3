/** What `npm run export` and `npm run import` share: which graph they name, and the stack on it. */
import { Effect, Schema } from "effect"
import { workspaceGraph, WorkspaceName } from "../domain/tokens.js"
import { SettingsLive } from "../layers/assembly/SettingsLive.js"
import { relayStack } from "../layers/assembly/stacks.js"
import { CliFailure } from "./common.js"

const graphPattern = /^[A-Za-z0-9_-]{1,64}$/

/** The graph named by --graph or --workspace (a team workspace's graph), or null for RELAY_GRAPH. */
export const chosenGraph = (usage: string, options: { graph?: string | undefined; workspace?: string | undefined }) => {
  if (options.graph !== undefined && options.workspace !== undefined) {
    return Effect.fail(new CliFailure({ message: `name --graph or --workspace, not both\n${usage}`, exitCode: 2 }))
  }
  if (options.graph !== undefined) {
    return graphPattern.test(options.graph)
      ? Effect.succeed<string | null>(options.graph)
      : Effect.fail(
        new CliFailure({ message: `--graph must be 1-64 letters, digits, '_' or '-'\n${usage}`, exitCode: 2 })
      )
  }
  if (options.workspace !== undefined) {
    return Schema.decode(WorkspaceName)(options.workspace).pipe(
      Effect.map((w): string | null => workspaceGraph(w)),
      Effect.mapError(() => new CliFailure({ message: `--workspace has the wrong form\n${usage}`, exitCode: 2 }))
    )
  }
  return Effect.succeed<string | null>(null)
}

/** Relay's stack on the configured database, on `graph` (null: the configured RELAY_GRAPH). */
export const stackOn = (graph: string | null) => relayStack(SettingsLive, { graph: graph ?? undefined })

export const unreachable = () =>
  new CliFailure({
    message: "FalkorDB could not be reached; run `npm run check-db` to see which database Relay uses and what to do.",
    exitCode: 1
  })
