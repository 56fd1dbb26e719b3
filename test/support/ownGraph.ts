import { Effect } from "effect"
import { inject } from "vitest"
import { relayStack } from "../../src/layers/assembly/stacks.js"
import { withRawDatabase } from "./rawDatabase.js"
import { settingsOn, testGraphName } from "./testLayer.js"

/**
 * A test's own graph, for tests that open several Relay stacks on one graph in turn (a migration, a
 * value changed by hand between them): its name, dropped when the test's scope closes.
 */
export const ownGraph = (name: string) =>
  Effect.tap(
    Effect.sync(() => testGraphName(name)),
    (graph) =>
      Effect.addFinalizer(() =>
        Effect.promise(() => withRawDatabase((db) => db.selectGraph(graph).delete().catch(() => undefined)))
      )
  )

/** A Relay stack on that graph, as a process of this version opens it. */
export const stackOn = (graph: string) => relayStack(settingsOn(inject("falkordb"), graph))

/** Cypher on the bare client, bypassing Relay (to set up what an older Relay or a hand left behind). */
export const raw = (graph: string, cypher: string, params: Record<string, unknown> = {}) =>
  withRawDatabase((db) => db.selectGraph(graph).query(cypher, { params: params as never }))
