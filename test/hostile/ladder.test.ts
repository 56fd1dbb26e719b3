import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { FactStore } from "../../src/services/FactStore.js"
import { type CypherParams, GraphDatabase } from "../../src/services/GraphDatabase.js"
import { relayTestLayer } from "../support/testLayer.js"
import { ladder, shapeStatements } from "./chainShapes.js"

/**
 * Walks down visit each fact once, however many paths lead to it (layers/factStore/supports.ts).
 * 40 levels of two facts each on both above: 2^40 paths from the root to the last level. A
 * variable-length MATCH makes a row per path (22 levels: 8.4 million rows, 1.6 s), so retracting
 * the root never ended inside the statement timeout; the breadth-first walk marks 80 facts.
 */
const levels = 40
const { root, rungs, shape } = ladder(levels)

layer(relayTestLayer("hostile_ladder"))("a ladder of facts on two parents each", (it) => {
  it.effect(
    "retracting its root marks every fact stale once and lists each once; impact places each at its level",
    () =>
      Effect.gen(function*() {
        const db = yield* GraphDatabase
        for (const s of shapeStatements(shape)) yield* db.write(s.cypher, s.params as CypherParams)
        const store = yield* FactStore
        const level = new Map(rungs.flatMap((rung, l) => rung.map((f) => [f.id, l + 1] as const)))

        const before = yield* store.impact(root.id, { limit: 100, cursor: null })
        expect(before.next_cursor).toBeNull()
        expect(before.items.map((d) => d.fact.id).sort()).toEqual([...level.keys()].sort())
        expect(before.items.map((d) => d.distance)).toEqual(before.items.map((d) => level.get(d.fact.id)))

        const retracted = yield* store.retract({
          callId: randomUUID(),
          factId: root.id,
          reason: "the ladder stood on a wrong root",
          retractedBy: "lead",
          staleLimit: 100
        })
        expect(retracted.staleNextCursor).toBeNull()
        expect(retracted.stale.map((d) => d.fact.id).sort()).toEqual([...level.keys()].sort())
        expect(retracted.stale.map((d) => d.distance)).toEqual(retracted.stale.map((d) => level.get(d.fact.id)))

        const state = yield* store.currentState({ limit: 100, sessionId: null, before: null, statuses: ["stale"] })
        expect(state.items.map((f) => f.id).sort()).toEqual([...level.keys()].sort())
      }),
    60_000
  )
})
