import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { FactKind } from "../../src/domain/fact.js"
import { schemaVersion } from "../../src/layers/database/schemaVersion.js"
import { verifyStored } from "../../src/layers/factStore/verifyStored.js"
import { FactStore } from "../../src/services/FactStore.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ownGraph, raw, stackOn } from "../support/ownGraph.js"

/**
 * Issue 41, point 1: no disagreement hides behind a label. A choice forks with a sibling of any kind
 * that shares two stemmed terms with it; a detail forks only with what it names in `contradicts`
 * (or a choice about the same thing); kind-less facts keep the seed's rule. A schema-6 graph, marked
 * under the old rule (a detail in no fork), is re-marked by the migration to schema 7.
 */

const saver = (store: FactStore["Type"]) =>
(
  content: string,
  parentId: string | null,
  kind: FactKind | null = null,
  contradicts: ReadonlyArray<string> = []
) => store.save({ id: randomUUID(), content, writtenBy: "w", sessionId: "s", parentId, kind, contradicts })

const conflictsNow = Effect.flatMap(FactStore, (store) =>
  Effect.map(
    store.openConflicts({ limit: 100, after: null }),
    (page) => page.conflicts.map((c) => [c.parent.content, c.children.map((f) => f.content).sort()])
  ))

/**
 * The memory: a detail and a choice about primary keys (a real disagreement the old rule
 * hid), a choice and a kind-less fact about different things under one parent (a conflict the old
 * rule made up), and two details about the same queue (no disagreement either way).
 */
const buildMemory = Effect.gen(function*() {
  const store = yield* FactStore
  const save = saver(store)
  const db = (yield* save("Database conventions for the orders service", null)).fact
  yield* save("New tables use UUIDv7 primary keys", db.id, "detail")
  const bigserial = yield* save("Use bigserial primary keys", db.id, "choice")
  const cache = (yield* save("Caching layer", null)).fact
  yield* save("Use Redis for the session cache", cache.id, "choice")
  yield* save("Deploy the cache with Helm charts", cache.id)
  const queue = (yield* save("Job queue", null)).fact
  yield* save("Retries back off exponentially", queue.id, "detail")
  yield* save("Dead letters go to S3", queue.id, "detail")
  return { db, bigserial, cache, queue }
})

it.live(
  "a choice forks with a detail that shares its terms, names what it let pass, and contradicts forks a detail",
  () =>
    Effect.gen(function*() {
      const graph = yield* ownGraph("forkrule")
      yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* FactStore
          const { bigserial, cache, queue } = yield* buildMemory
          expect(bigserial.forkSiblings.map((f) => f.content)).toEqual(["New tables use UUIDv7 primary keys"])
          expect(yield* conflictsNow).toEqual([
            ["Database conventions for the orders service", [
              "New tables use UUIDv7 primary keys",
              "Use bigserial primary keys"
            ]]
          ])
          // A choice about something else under the cache: compared, let pass, and named in the reply.
          const ttl = yield* saver(store)("Cache entries expire after 10 minutes", cache.id, "choice")
          expect(ttl.siblingsTotal).toBe(0)
          expect([ttl.compared.map((f) => f.content), ttl.comparedTotal]).toEqual([
            ["Use Redis for the session cache", "Deploy the cache with Helm charts"],
            2
          ])
          // A detail that says it contradicts a sibling forks with it, and only with it.
          const retries = (yield* store.currentState({ limit: 10, sessionId: null, before: null })).items
            .find((f) => f.content === "Retries back off exponentially")!
          const fixed = yield* saver(store)("Retries wait a fixed 5 s", queue.id, "detail", [retries.id])
          expect(fixed.forkSiblings.map((f) => f.content)).toEqual(["Retries back off exponentially"])
          expect((yield* conflictsNow).map((c) => c[0])).toEqual([
            "Job queue",
            "Database conventions for the orders service"
          ])
          // contradicts names siblings only.
          const stranger = yield* Effect.flip(saver(store)("x", queue.id, "detail", [bigserial.fact.id]))
          expect(stranger.message).toMatch(/^contradicts: .* is not a sibling/)
          const verified = yield* Effect.flatMap(GraphDatabase, (db) => verifyStored(db))
          expect(verified).toMatchObject({ forksDrifted: 0, pairsDrifted: 0 })
        }),
        stackOn(graph)
      )
    }).pipe(Effect.scoped),
  60_000
)

it.live(
  "a schema-6 graph is re-marked under the new rule by its first process of schema 7",
  () =>
    Effect.gen(function*() {
      const graph = yield* ownGraph("forkmigrate")
      const built = yield* Effect.provide(buildMemory, stackOn(graph))
      // As schema 6 left it: no FORKS edges; marks where the old rule saw a fork (the cache: a choice
      // and a kind-less fact that differ), none where it saw none (a detail was in no fork).
      yield* Effect.promise(() => raw(graph, "MATCH ()-[e:FORKS]->() DELETE e"))
      yield* Effect.promise(() => raw(graph, "MATCH (m:ForkMark) DETACH DELETE m"))
      yield* Effect.promise(() =>
        raw(graph, "MATCH (p:Fact {id: $id}) CREATE (:ForkMark)-[:MARKS {opened: 1, closed: -1}]->(p)", {
          id: built.cache.id
        })
      )
      yield* Effect.promise(() => raw(graph, "MATCH (c:RelayClock) SET c.schema = 6"))
      const after = yield* Effect.provide(
        Effect.gen(function*() {
          const conflicts = yield* conflictsNow
          const verified = yield* Effect.flatMap(GraphDatabase, (db) => verifyStored(db))
          return { conflicts, verified }
        }),
        stackOn(graph)
      )
      expect(after.conflicts).toEqual([
        ["Database conventions for the orders service", [
          "New tables use UUIDv7 primary keys",
          "Use bigserial primary keys"
        ]]
      ])
      expect(after.verified).toMatchObject({ drifted: 0, forksDrifted: 0, pairsDrifted: 0, pairsChecked: 2 })
      const version = yield* Effect.promise(() => raw(graph, "MATCH (c:RelayClock) RETURN c.schema AS v"))
      expect(version.data).toEqual([{ v: schemaVersion }])
    }).pipe(Effect.scoped),
  60_000
)
