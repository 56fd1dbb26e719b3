import { expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { inject } from "vitest"
import { relayStack } from "../../src/layers/assembly/stacks.js"
import { verifyStored } from "../../src/layers/factStore/verifyStored.js"
import { FactStore } from "../../src/services/FactStore.js"
import { type CypherParams, GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ok } from "../support/runTool.js"
import { relayTestLayer, settingsOn } from "../support/testLayer.js"
import { deepChain, shapeStatements } from "./chainShapes.js"
import { savesElsewhere, timedIn } from "./shapeRuns.js"

/**
 * Issue 22: a decision or retraction marks each dependent once, in its own statement. At 200,000
 * dependents (a chain that deep, written as Relay stores it) retracting the root marks them all:
 * every fact below reads stale, the stored state has no drift, and another graph's saves all land
 * meanwhile (they wait for the single writer; none fails). The walk is a MATCH: as a pattern
 * comprehension it took FalkorDB 206 s at this depth. Then the memory is made as an older Relay left
 * it, and a new process migrates it before its first read.
 */
const depth = 200_000
const { chain, shape, winner } = deepChain(depth, depth - 1, (i) => `step ${i}`)

const timed = timedIn("200,000 dependents")

layer(relayTestLayer("dependents_200k"))("a retraction over 200,000 dependents", (it) => {
  it.effect(
    "marks every dependent stale once; verify finds no drift; another graph's saves all land",
    () =>
      Effect.gen(function*() {
        const db = yield* GraphDatabase
        yield* timed(
          "load",
          Effect.forEach(shapeStatements(shape), (s) => db.write(s.cypher, s.params as CypherParams), { discard: true })
        )
        // Another client saving into its own graph the whole time.
        const saves = yield* savesElsewhere(20)
        const retracted = yield* timed(
          "retract the root",
          ok("relay_retract_fact", { fact_id: chain[0]!.id, reason: "wrong from the start", retracted_by: "lead" })
        )
        expect(retracted.stale.map((d) => d.distance).slice(0, 3)).toEqual([1, 2, 3])
        expect(retracted.stale_next_cursor).not.toBeNull()
        const active = yield* ok("relay_get_current_state", { limit: 5 })
        expect(active.facts.map((f) => f.id)).toEqual([winner.id])
        const context = yield* ok("relay_get_context", { fact_id: chain[depth - 2]!.id, limit: 3 })
        expect(context.chain.map((f) => f.status)).toEqual(["stale", "stale", "stale"])
        const verified = yield* timed("verify", Effect.flatMap(GraphDatabase, (g) => verifyStored(g)))
        expect(verified).toMatchObject({ facts: depth + 1, drifted: 0, examples: [], forksDrifted: 0 })
        const results = yield* Fiber.join(saves)
        expect(results.filter((r) => r._tag === "Left")).toEqual([])

        // The same memory as a Relay before schema 2 left it, opened by a new process: migrated in
        // bounded statements, to the same statuses and no drift.
        yield* db.write("MATCH (f:Fact) REMOVE f.stale_at")
        yield* db.write("MATCH (c:RelayClock) REMOVE c.schema")
        const reopened = relayStack(settingsOn(inject("falkordb"), db.graphName))
        const after = yield* timed(
          "migration on first use, then current_state",
          Effect.provide(
            Effect.flatMap(FactStore, (store) =>
              store.currentState({ limit: 5, sessionId: null, before: null, statuses: ["active"] })),
            reopened
          )
        )
        expect(after.items.map((f) =>
          f.id
        )).toEqual([winner.id])
        const again = yield* Effect.provide(Effect.flatMap(GraphDatabase, (g) => verifyStored(g)), reopened)
        expect(again).toMatchObject({ facts: depth + 1, drifted: 0, examples: [], forksDrifted: 0 })
      }).pipe(Effect.scoped),
    600_000
  )
})
