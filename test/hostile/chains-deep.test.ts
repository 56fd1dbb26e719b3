import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ContextCursor, ImpactCursor } from "../../src/domain/chainPaging.js"
import type { Dependent, Fact } from "../../src/domain/fact.js"
import { resolutionMessage } from "../../src/domain/rules.js"
import { FactStore } from "../../src/services/FactStore.js"
import { type CypherParams, GraphDatabase } from "../../src/services/GraphDatabase.js"
import { relayTestLayer } from "../support/testLayer.js"
import { deepChain, shapeStatements } from "./chainShapes.js"

/**
 * Issue 9, item 3: on a 3,000-deep BUILDS_ON chain, context, impact and resolve answered
 * `unavailable`, because every returned fact walked to the root for its status (context alone took
 * 6.4 s in the database). The chain here has its fact 1,000 superseded, so facts 0-999 are active,
 * 1,000 superseded and 1,001-2,999 stale; every answer must say exactly that, page after page.
 */
const depth = 3000
const cut = 1000
const { chain, shape, winner } = deepChain(depth, cut, (i) => `step ${i} of a very long thread`)
const expected = (i: number) => i < cut ? "active" : i === cut ? "superseded" : "stale"

const timed = <A, E, R>(label: string, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = performance.now()
    const a = yield* effect
    console.log(`${label}: ${(performance.now() - start).toFixed(1)} ms`)
    return a
  })

const cursorOf = <K>(schema: Schema.Schema<K, string>, next: string) => Schema.decode(schema)(next).pipe(Effect.orDie)

layer(relayTestLayer("hostile_deep"))("a 3,000-deep chain", (it) => {
  it.effect("context, impact and resolve answer with the right statuses, in pages", () =>
    Effect.gen(function*() {
      const db = yield* GraphDatabase
      for (const s of shapeStatements(shape)) yield* db.write(s.cypher, s.params as CypherParams)
      const store = yield* FactStore
      const index = new Map(chain.map((f, i) => [f.id, i]))
      const statusesRight = (facts: ReadonlyArray<Fact>) =>
        expect(facts.map((f) => `${index.get(f.id)} ${f.status}`)).toEqual(
          facts.map((f) => `${index.get(f.id)} ${expected(index.get(f.id)!)}`)
        )

      // Context of the leaf: the first page ends with the leaf, root first within the page.
      const first = yield* timed(
        "context of the leaf, first page of 50",
        store.context(chain[depth - 1]!.id, { limit: 50, cursor: null })
      )
      expect(first.items.map((f) => f.id)).toEqual(chain.slice(depth - 50).map((f) => f.id))
      expect(first.items.map((f) => f.parent_id)).toEqual(chain.slice(depth - 51, depth - 1).map((f) => f.id))
      statusesRight(first.items)
      expect(first.next_cursor).not.toBeNull()

      // Paged to the root, 500 at a time: the whole chain exactly once, in order, statuses right.
      let whole: Array<Fact> = []
      let cursor: ContextCursor | null = null
      let calls = 0
      yield* timed(
        "context of the leaf paged to the root (500 a page)",
        Effect.gen(function*() {
          for (;;) {
            const p = yield* store.context(chain[depth - 1]!.id, { limit: 500, cursor })
            calls++
            whole = [...p.items, ...whole]
            if (p.next_cursor === null) break
            cursor = yield* cursorOf(ContextCursor, p.next_cursor)
          }
        })
      )
      expect(calls).toBe(6)
      expect(whole.map((f) => f.id)).toEqual(chain.map((f) => f.id))
      expect(whole[0]!.parent_id).toBeNull()
      statusesRight(whole)

      // Impact of the root: 2,999 dependents at distances 1..2,999, paged.
      let dependents: Array<Dependent> = []
      let at: ImpactCursor | null = null
      yield* timed(
        "impact of the root paged (500 a page)",
        Effect.gen(function*() {
          for (;;) {
            const p = yield* store.impact(chain[0]!.id, { limit: 500, cursor: at })
            dependents = [...dependents, ...p.items]
            if (p.next_cursor === null) break
            at = yield* cursorOf(ImpactCursor, p.next_cursor)
          }
        })
      )
      expect(dependents.map((d) => [d.fact.id, d.distance])).toEqual(chain.slice(1).map((f, i) => [f.id, i + 1]))
      statusesRight(dependents.map((d) => d.fact))
      expect(dependents.map((d) => d.fact.parent_id)).toEqual(chain.slice(0, -1).map((f) => f.id))

      // Impact of a stale fact: everything below it is stale too.
      const below = yield* store.impact(chain[2500]!.id, { limit: 10, cursor: null })
      expect(below.items.map((d) => [d.fact.id, d.distance, d.fact.status])).toEqual(
        chain.slice(2501, 2511).map((f, i) => [f.id, i + 1, "stale"])
      )

      // Resolve across the chain: ancestry is checked over 3,000 facts and refused.
      const related = yield* Effect.either(store.resolve({
        callId: crypto.randomUUID(),
        winnerId: chain[depth - 1]!.id,
        loserId: chain[0]!.id,
        reason: "deep",
        resolvedBy: "hostile"
      }))
      expect(related._tag === "Left" && related.left.message).toBe(resolutionMessage.builds_on_each_other)

      // A valid resolve whose loser has 1,499 dependents: the first 100 as `stale`, the rest through impact.
      const resolved = yield* timed(
        "resolve with 1,499 stale dependents",
        store.resolve({
          callId: crypto.randomUUID(),
          winnerId: winner.id,
          loserId: chain[1500]!.id,
          reason: "deep",
          resolvedBy: "hostile"
        })
      )
      expect(resolved.stale.map((d) => [d.fact.id, d.distance, d.fact.status])).toEqual(
        chain.slice(1501, 1601).map((f, i) => [f.id, i + 1, "stale"])
      )
      expect(resolved.staleNextCursor).not.toBeNull()
      const rest = yield* store.impact(chain[1500]!.id, {
        limit: 500,
        cursor: yield* cursorOf(ImpactCursor, resolved.staleNextCursor!)
      })
      expect(rest.items.map((d) => [d.fact.id, d.distance])).toEqual(
        chain.slice(1601, 2101).map((f, i) => [f.id, i + 101])
      )
    }), { timeout: 120_000 })
})
