import { expect, layer } from "@effect/vitest"
import { Context, Effect, Either, Layer, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { resolutionMessage } from "../../src/domain/rules.js"
import { relayStack } from "../../src/layers/assembly/stacks.js"
import { FactStore } from "../../src/services/FactStore.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { relayTestLayer, testSettings } from "../support/testLayer.js"

/**
 * Resolutions racing each other. Each racer has its own connection (its own FactStore layer), so the
 * statements really arrive at FalkorDB at the same time instead of queueing on one socket.
 */
const racers = (graph: string, n: number) =>
  Effect.forEach(
    Array.from({ length: n }),
    () => Layer.build(relayStack(testSettings(graph))).pipe(Effect.map(Context.get(FactStore)))
  )

/** The reasons stored on the SUPERSEDES edges from winner to loser: one edge, one reason, if all went well. */
const edgeReasons = (winner: string, loser: string) =>
  Effect.flatMap(GraphDatabase, (db) =>
    db.read(
      "MATCH (:Fact {id: $winner})-[r:SUPERSEDES]->(:Fact {id: $loser}) RETURN r.reason AS reason",
      { winner, loser },
      Schema.Struct({ reason: Schema.String })
    )).pipe(Effect.map((rows) => rows.map((r) => r.reason)))

const fork = (store: FactStore["Type"], tag: string) =>
  Effect.gen(function*() {
    const save = (content: string, writtenBy: string, parentId: string | null) =>
      Effect.map(
        store.save({ id: randomUUID(), content: `${content} ${tag}`, writtenBy, sessionId: "s", parentId }),
        (saved) => saved.fact.id
      )
    const root = yield* save("root", "a", null)
    const a = yield* save("left", "a", root)
    const b = yield* save("right", "b", root)
    yield* save("on right", "b", b)
    return { a, b }
  })

layer(relayTestLayer("concurrency"))("concurrent resolutions", (it) => {
  // The only race of identical resolutions (test/concurrency had a second, on two connections through
  // the tool edge; its checks of resolved_by and the edge's stored reason are here now).
  it.scoped("10 identical resolutions at once: one edge, one already_resolved: false, the first reason everywhere", () =>
    Effect.gen(function*() {
      const store = yield* FactStore
      const { graphName } = yield* GraphDatabase
      const stores = yield* racers(graphName, 10)
      for (let round = 0; round < 5; round++) {
        const { a, b } = yield* fork(store, `identical ${round}`)
        const results = yield* Effect.forEach(
          stores,
          (s, i) =>
            s.resolve({
              callId: crypto.randomUUID(),
              winnerId: a,
              loserId: b,
              reason: `reason ${i}`,
              resolvedBy: `racer-${i}`
            }),
          { concurrency: "unbounded" }
        )
        expect(results.filter((r) => !r.alreadyResolved)).toHaveLength(1)
        const first = results.find((r) => !r.alreadyResolved)!
        for (const r of results) {
          expect(r.reason).toBe(first.reason)
          expect(r.resolvedBy).toBe(first.resolvedBy)
          expect(r.createdAt).toBe(first.createdAt)
          expect(r.stale.map((d) => d.distance)).toEqual([1])
        }
        expect(yield* edgeReasons(a, b)).toEqual([first.reason])
      }
    }))

  it.scoped("opposite resolutions at once: exactly one direction is accepted, the other is a cycle", () =>
    Effect.gen(function*() {
      const store = yield* FactStore
      const { graphName } = yield* GraphDatabase
      const stores = yield* racers(graphName, 10)
      for (let round = 0; round < 5; round++) {
        const { a, b } = yield* fork(store, `opposite ${round}`)
        const results = yield* Effect.forEach(stores, (s, i) =>
          Effect.either(s.resolve(
            i % 2 === 0
              ? { callId: crypto.randomUUID(), winnerId: a, loserId: b, reason: "left", resolvedBy: "even" }
              : { callId: crypto.randomUUID(), winnerId: b, loserId: a, reason: "right", resolvedBy: "odd" }
          )), { concurrency: "unbounded" })
        const accepted = results.filter(Either.isRight).map((r) => r.right)
        const rejected = results.filter(Either.isLeft).map((r) => r.left)
        expect(accepted.filter((r) => !r.alreadyResolved)).toHaveLength(1)
        const winner = accepted[0]!.winner.id
        // Every accepted call is the same direction; every refused one is the other, refused as a cycle.
        expect(accepted.every((r) => r.winner.id === winner)).toBe(true)
        expect(accepted).toHaveLength(5)
        expect(rejected).toHaveLength(5)
        for (const e of rejected) {
          expect(e._tag).toBe("InvalidResolution")
          expect(e.message).toBe(resolutionMessage.supersedes_cycle)
        }
        const loser = winner === a ? b : a
        expect(yield* edgeReasons(winner, loser)).toHaveLength(1)
        expect(yield* edgeReasons(loser, winner)).toEqual([])
      }
    }))
})
