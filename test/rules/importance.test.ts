import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Schema, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { ImportantCursor, pageRank } from "../../src/domain/graphRank.js"
import { Cursor, type PlaceOf } from "../../src/domain/paging.js"
import { readShape } from "../../src/layers/factStore/graphShape.js"
import { dueAfter, materialise } from "../../src/layers/factStore/rankGenerations.js"
import { importantNow } from "../../src/layers/factStore/ranking.js"
import { type BulkFact, FactStore } from "../../src/services/FactStore.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * Issue 42: importance is materialised off the request path (layers/factStore/rankGenerations.ts):
 * a generation is due after 1,000 writes and 10 minutes, whichever comes later; one process builds
 * it under a lease; the page is read from it, as of its stamp; before the first one a call computes
 * it then.
 */

/** `n` facts in one bulk statement: a root with `n - 1` children, or children under `under`. */
const bulk = (n: number, under: string | null, tag: string) =>
  Effect.gen(function*() {
    const store = yield* FactStore
    const root = under ?? randomUUID()
    const facts: Array<BulkFact> = Array.from({ length: n }, (_, i) => ({
      id: i === 0 && under === null ? root : randomUUID(),
      content: `${tag} fact ${i}`,
      writtenBy: "w",
      sessionId: "s",
      parentId: i === 0 && under === null ? null : root,
      requested: false
    }))
    yield* store.saveMany(facts)
    return root
  })

const page = (limit: number, after: PlaceOf<typeof ImportantCursor> | null = null) =>
  Effect.flatMap(FactStore, (s) => s.important({ limit, after }))

const Gen = Schema.Struct({ gen: Schema.NullOr(Schema.Number), n: Schema.Number })
const generation = Effect.flatMap(GraphDatabase, (db) =>
  db.read(
    "OPTIONAL MATCH (:RankHead)-[h:RANKS]->() WITH h OPTIONAL MATCH ()-[r:RANKED]->() RETURN h.gen AS gen, count(r) AS n",
    {},
    Gen
  ).pipe(Effect.map((rows) => rows[0]!)))

layer(relayTestLayer("importance"))("importance, materialised", (it) => {
  it.effect("a fresh memory's first call answers, computed then; a generation waits for 1,000 writes and 10 minutes", () =>
    Effect.gen(function*() {
      const db = yield* GraphDatabase
      const store = yield* FactStore
      yield* TestClock.setTime(Date.parse("2026-03-01T00:00:00Z"))
      const root = yield* Effect.map(
        store.save({ id: randomUUID(), content: "the root", writtenBy: "w", sessionId: "s", parentId: null }),
        (s) => s.fact
      )
      const child = yield* store.save({
        id: randomUUID(),
        content: "a child",
        writtenBy: "w",
        sessionId: "s",
        parentId: root.id
      })
      const fresh = yield* page(5)
      expect(fresh.items.map((i) => i.fact.id)).toEqual([root.id, child.fact.id])
      expect(fresh.asOf).toBe(Date.parse(child.fact.created_at))
      // Not due: a generation waits for 1,000 writes (and 10 minutes) since the last, or since none.
      expect(yield* materialise(db, { me: "a" })).toBe(false)
      yield* TestClock.adjust(Duration.sum(dueAfter, Duration.minutes(1)))
      expect(yield* materialise(db, { me: "a" })).toBe(false)
      const big = yield* bulk(1000, null, "big")
      expect(yield* materialise(db, { me: "a" })).toBe(true)
      const built = yield* generation
      expect(built.gen).toBe(1)
      // Two processes look at once: one builds, under the lease; then nothing is due.
      yield* bulk(1000, big, "more")
      yield* TestClock.adjust(Duration.sum(dueAfter, Duration.minutes(1)))
      const both = yield* Effect.all([materialise(db, { me: "a" }), materialise(db, { me: "b" })], {
        concurrency: 2
      })
      expect(both.filter((x) => x)).toHaveLength(1)
      expect((yield* generation).gen).toBe(2)
      expect(yield* materialise(db, { me: "b" })).toBe(false)
      // 1,000 writes but only 5 minutes: whichever is later.
      yield* bulk(1000, big, "again")
      yield* TestClock.adjust(Duration.minutes(5))
      expect(yield* materialise(db, { me: "b" })).toBe(false)
    }))

  it.effect("the page is the generation's, through its places: the pure PageRank of its inputs, as of its stamp", () =>
    Effect.gen(function*() {
      const db = yield* GraphDatabase
      const store = yield* FactStore
      expect(yield* materialise(db, { me: "c", force: true })).toBe(true)
      const gen = yield* page(100)
      // The scores' inputs read back as the pure rule reads them, and the page is its top.
      const shape = yield* readShape(db, { retracted: true })
      const scores = pageRank(shape.parent)
      const now = yield* importantNow(db, { limit: 100, after: null })
      expect(gen.items.map((i) => i.fact.id)).toEqual(now.items.map((i) => i.fact.id))
      expect(gen.items[0]!.score).toBeCloseTo(Math.max(...scores), 12)
      // Pages by cursor walk the same order.
      const first = yield* page(7)
      const key = yield* ImportantCursor.decode(yield* Schema.decode(Cursor)(first.next_cursor!))
      const second = yield* page(7, key)
      expect([...first.items, ...second.items].map((i) => i.fact.id)).toEqual(
        gen.items.slice(0, 14).map((i) => i.fact.id)
      )
      // A fact written since is not ranked until the next generation; a fact retracted since is left out.
      const later = yield* store.save({
        id: randomUUID(),
        content: "later",
        writtenBy: "w",
        sessionId: "s",
        parentId: null
      })
      const top = gen.items[0]!.fact.id
      yield* store.retract({ callId: randomUUID(), factId: top, reason: "wrong", retractedBy: "lead" })
      const after = yield* page(99)
      expect(after.asOf).toBe(gen.asOf)
      expect(after.items.map((i) => i.fact.id)).not.toContain(later.fact.id)
      expect(after.items.map((i) => i.fact.id)).toEqual(gen.items.map((i) => i.fact.id).filter((id) => id !== top))
    }))
})
