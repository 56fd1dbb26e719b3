import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { relayStack } from "../../src/layers/assembly/stacks.js"
import { FactStore } from "../../src/services/FactStore.js"
import { startServer } from "../support/falkordbServer.js"
import { connectAdmin } from "../support/proof.js"
import { settingsOn, testGraphName } from "../support/testLayer.js"

/**
 * On a FalkorDB that persists every write as effects (EFFECTS_THRESHOLD 0; Relay's own servers never
 * do, database/effectsReplication.ts), a new graph's first start must not run writes that change
 * nothing: FalkorDB adds the properties they name to the graph without persisting them, and the next
 * write's effects then name its new properties by ids that mean nothing after a restart (a fact's
 * `written_by` and `stale_at` came back null). So a new graph only gets its version.
 */
it.live("a new graph's facts come back whole from an append-only file of effects", () =>
  Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(
      Effect.promise(() => startServer({ persist: true, effectsThreshold: 0 })),
      (s) => Effect.promise(() => s.stop())
    )
    const graph = testGraphName("effects_replay")
    yield* Effect.gen(function*() {
      const facts = yield* FactStore
      yield* facts.save({
        id: randomUUID(),
        content: "the first fact",
        writtenBy: "ann",
        sessionId: "s",
        parentId: null
      })
    }).pipe(Effect.provide(relayStack(settingsOn(server, graph))))
    const read = () =>
      Effect.promise(async () => {
        const admin = await connectAdmin(server)
        try {
          return await admin.query(
            graph,
            "MATCH (f:Fact) RETURN f.written_by AS w, f.stale_at AS st, f.session_id AS s"
          )
        } finally {
          await admin.close()
        }
      })
    const before = yield* read()
    yield* Effect.promise(() => server.kill())
    yield* Effect.promise(() => server.restart())
    expect(yield* read()).toEqual(before)
    expect(before).toEqual([{ w: "ann", st: 8_640_000_000_000_000, s: "s" }])
  }).pipe(Effect.scoped), 60_000)
