import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { resolutionMessage } from "../../src/domain/rules.js"
import { clockSetQuery } from "../../src/layers/database/clock.js"
import { FactStore } from "../../src/services/FactStore.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * Issue 9, item 1: 40 layers of 2 facts, each fact superseding both facts of the next layer (every
 * decision valid), so 2^39 SUPERSEDES paths lead from a fact of the first layer to the last. The
 * cycle check enumerated every path: at 28 layers one resolve held the write lock ~55 s. A
 * reachability test answers both a valid resolution and a cycle at once.
 */
const layers = 40
const id = (side: "a" | "b", i: number) =>
  `00000000-0000-4000-8000-${side === "a" ? "a" : "b"}${String(i).padStart(11, "0")}`

const buildLattice = Effect.gen(function*() {
  const db = yield* GraphDatabase
  const facts = Array.from({ length: layers }, (_, i) => [id("a", i), id("b", i)]).flat()
  yield* db.write(
    `UNWIND range(0, size($ids) - 1) AS i ` +
      `CREATE (:Fact {id: $ids[i], content: 'layer fact ' + toString(i), norm: 'layer fact ' + toString(i), ` +
      `written_by: 'lattice', session_id: 'lattice', created_at: 1000 + i})`,
    { ids: facts }
  )
  const edges = Array.from(
    { length: layers - 1 },
    (_, i) => (["a", "b"] as const).flatMap((w) => (["a", "b"] as const).map((l) => [id(w, i), id(l, i + 1)]))
  ).flat()
  yield* db.write(
    `UNWIND $edges AS e MATCH (w:Fact {id: e[0]}), (l:Fact {id: e[1]}) ` +
      `CREATE (w)-[:SUPERSEDES {reason: 'lattice', resolved_by: 'lattice', created_at: 5000, call_id: 'lattice'}]->(l)`,
    { edges }
  )
  yield* db.write(clockSetQuery({ last: "5000" }))
  const count = yield* db.read(
    `MATCH ()-[r:SUPERSEDES]->() RETURN count(r) AS n`,
    {},
    Schema.Struct({ n: Schema.Number })
  )
  expect(count[0]?.n).toBe(4 * (layers - 1))
})

const timed = <A, E, R>(label: string, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = performance.now()
    const result = yield* Effect.either(effect)
    const ms = performance.now() - start
    console.log(`${label}: ${ms.toFixed(1)} ms`)
    return { result, ms }
  })

layer(relayTestLayer("hostile_layers"))("the decision check on a lattice of 2^39 paths", (it) => {
  it.effect("answers a cycle and a valid decision in well under a second each", () =>
    Effect.gen(function*() {
      yield* buildLattice
      const store = yield* FactStore
      const resolve = (winnerId: string, loserId: string) =>
        store.resolve({ callId: crypto.randomUUID(), winnerId, loserId, reason: "lattice", resolvedBy: "hostile" })

      // The first layer supersedes the last through 39 decisions: the reverse is a cycle.
      const cycle = yield* timed(`cycle refused at ${layers} layers`, resolve(id("a", layers - 1), id("a", 0)))
      expect(cycle.result._tag).toBe("Left")
      if (cycle.result._tag === "Left") {
        expect(cycle.result.left._tag).toBe("InvalidResolution")
        expect(cycle.result.left.message).toBe(resolutionMessage.supersedes_cycle)
      }
      expect(cycle.ms).toBeLessThan(1000)

      // Nothing leads from a0 back to b0, but every one of a0's 2^39 paths had to be tried to know it.
      const valid = yield* timed(`valid decision at ${layers} layers`, resolve(id("b", 0), id("a", 0)))
      expect(valid.result._tag).toBe("Right")
      if (valid.result._tag === "Right") {
        expect(valid.result.right.alreadyResolved).toBe(false)
        expect(valid.result.right.loser.status).toBe("superseded")
      }
      expect(valid.ms).toBeLessThan(1000)

      // And now that b0 supersedes a0, a0 over b0 closes a cycle of length one.
      const back = yield* timed("direct reversal refused", resolve(id("a", 0), id("b", 0)))
      expect(back.result._tag === "Left" && back.result.left.message).toBe(resolutionMessage.supersedes_cycle)
    }), { timeout: 30_000 })
})
