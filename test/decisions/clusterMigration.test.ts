import { expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { schemaVersion } from "../../src/layers/database/schemaVersion.js"
import { clusterDrift } from "../../src/layers/factStore/clusterMigration.js"
import { FactStore } from "../../src/services/FactStore.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ownGraph, raw, stackOn } from "../support/ownGraph.js"

/**
 * Issue 42: threads and clusters are kept on write (schema 8, layers/factStore/threadClusters.ts).
 * A graph of schema 6 or 7 (before issue 42: no thread roots, no THREAD or CLUSTER loops, no
 * root on MARKS, no importance generation) is migrated by the first process that opens it, to
 * the clusters, thread scopes and importance a graph written at schema 8 answers; check-db
 * --verify recomputes the clusters from the edges and names drift.
 */

/**
 * Three threads: A (a root, three differing children: a fork, and a grandchild), B (a root
 * revised by a new root: SUPERSEDES joins two threads), and C (a root and a child), then a decision
 * across A and C (joins them too), and a lone root D.
 */
const buildMemory = Effect.gen(function*() {
  const store = yield* FactStore
  const save = (content: string, parentId: string | null, revises?: string) =>
    Effect.map(
      store.save({
        id: randomUUID(),
        content,
        writtenBy: "w",
        sessionId: "s",
        parentId,
        revises: revises === undefined ? null : { id: revises, reason: "better" }
      }),
      (s) => s.fact
    )
  const a = yield* save("thread A: which database", null)
  const a1 = yield* save("use postgres", a.id)
  const a2 = yield* save("use sqlite", a.id)
  yield* save("use mysql", a.id)
  yield* save("postgres 16", a1.id)
  const b = yield* save("thread B: deploys on Fridays", null)
  yield* save("thread B: deploys on Thursdays", null, b.id)
  const c = yield* save("thread C: caching", null)
  const c1 = yield* save("cache in redis", c.id)
  yield* store.resolve({ callId: randomUUID(), winnerId: c1.id, loserId: a2.id, reason: "cross", resolvedBy: "lead" })
  yield* save("thread D: alone", null)
  return { a, b, c }
})

const answers = (threadOf: string) =>
  Effect.gen(function*() {
    const store = yield* FactStore
    const page = yield* store.clusters({ limit: 20, factsPerCluster: 5 })
    const scoped = yield* store.currentState({ limit: 50, sessionId: null, before: null, thread: threadOf })
    const db = yield* GraphDatabase
    const drift = yield* clusterDrift(db)
    const important = yield* store.important({ limit: 3, after: null })
    return {
      total: page.total,
      clusters: page.clusters.map((c) => ({
        size: c.size,
        label: c.label,
        open: c.openConflicts,
        facts: c.facts.map((f) => f.content)
      })),
      scoped: scoped.items.map((f) => f.content).sort(),
      drift,
      important: important.items.map((i) => i.fact.content),
      asOf: important.asOf
    }
  })

const Version = Schema.Struct({ v: Schema.Unknown })

/**
 * From 7 (issue 41's FORKS edges and marks, none of 8's form) only schema 8's steps run; from 6 the
 * FORKS edges are made again first (forkRule.test.ts tests that step): the answers are the same.
 */
it.live.each([6, 7])(
  "a schema %i graph is migrated to threads and clusters on first use; verify names drift",
  (from) =>
    Effect.gen(function*() {
      const graph = yield* ownGraph(`clusters${from}`)
      const before = yield* Effect.provide(
        Effect.flatMap(buildMemory, ({ a }) => answers(a.id)),
        stackOn(graph)
      )
      // Written at schema 8: A and C joined by the decision (7 facts), B's two roots (2), D (1).
      expect(before.total).toBe(3)
      expect(before.clusters.map((c) => [c.size, c.label, c.open])).toEqual([
        [7, "thread A: which database", 1],
        [2, "thread B: deploys on Fridays", 0],
        [1, "thread D: alone", 0]
      ])
      expect(before.clusters[0]!.facts).toEqual([
        "thread A: which database",
        "use postgres",
        "use sqlite",
        "use mysql",
        "postgres 16"
      ])
      // The thread of A: its facts, none of C's (a decision joins clusters, not threads).
      expect(before.scoped).toEqual([
        "postgres 16",
        "thread A: which database",
        "use mysql",
        "use postgres",
        "use sqlite"
      ])
      expect(before.drift).toEqual({ clusters: 3, drifted: 0, examples: [] })

      // As a Relay of schema 6 or 7 left it: none of schema 8's stored form (6: no FORKS edges either).
      for (
        const cypher of [
          "MATCH (f:Fact) REMOVE f.root",
          "MATCH ()-[e:THREAD]->() DELETE e",
          "MATCH ()-[e:CLUSTER]->() DELETE e",
          "MATCH ()-[e:RANKED]->() DELETE e",
          "MATCH (h:RankHead) DELETE h",
          "MATCH ()-[m:MARKS]->() REMOVE m.root",
          ...(from === 6 ? ["MATCH ()-[e:FORKS]->() DELETE e"] : []),
          `MATCH (c:RelayClock) SET c.schema = ${from}`
        ]
      ) yield* Effect.promise(() => raw(graph, cypher))

      const after = yield* Effect.provide(
        Effect.gen(function*() {
          const db = yield* GraphDatabase
          const version = yield* db.read("MATCH (c:RelayClock) RETURN c.schema AS v", {}, Version)
          const a = yield* db.read("MATCH (f:Fact {content: 'thread A: which database'}) RETURN f.id AS v", {}, Version)
          return { version: version[0]?.v, ...(yield* answers(String(a[0]?.v))) }
        }),
        stackOn(graph)
      )
      expect(after.version).toBe(schemaVersion)
      const { asOf: _a, drift: _d, ...same } = before
      expect(after).toMatchObject(same)
      expect(after.drift).toEqual({ clusters: 3, drifted: 0, examples: [] })
      // The migration made the first generation of importance: the reply is as of a stamp.
      expect(after.asOf).not.toBeNull()

      // Drift is named: a tally changed by hand, and a root moved to another cluster.
      yield* Effect.promise(() => raw(graph, "MATCH ()-[c:CLUSTER]->() WHERE c.size = 2 SET c.size = 3"))
      const drifted = yield* Effect.provide(Effect.flatMap(GraphDatabase, (db) => clusterDrift(db)), stackOn(graph))
      expect(drifted.drifted).toBe(1)
      expect(drifted.examples[0]).toMatch(/stores size 3, 2 roots; its edges give size 2, 2 roots/)
    }).pipe(Effect.scoped),
  60_000
)

const Pair = Schema.Struct({ at: Schema.Unknown, id: Schema.Unknown, stamp: Schema.Unknown })

/**
 * Schema 10: a cluster's oldest facts are kept as [stamp, id] pairs (a page reads them by Fact.id).
 * A graph of 9 keeps stamps alone: its first process of 10 writes the loops again from the edges,
 * and the pages answer as before; verify compares the pairs with what the edges give.
 */
it.live("a schema 9 graph's clusters keep their oldest facts' ids after its first use", () =>
  Effect.gen(function*() {
    const graph = yield* ownGraph("clusters9")
    const before = yield* Effect.provide(Effect.flatMap(buildMemory, ({ a }) => answers(a.id)), stackOn(graph))
    // As a Relay of 9 left it: each cluster's oldest facts by their stamps alone.
    for (
      const cypher of [
        "MATCH ()-[c:CLUSTER]->() WHERE typeOf(c.firsts[0]) = 'List' SET c.firsts = [x IN c.firsts | x[0]]",
        "MATCH (c:RelayClock) SET c.schema = 9"
      ]
    ) yield* Effect.promise(() => raw(graph, cypher))
    const after = yield* Effect.provide(
      Effect.gen(function*() {
        const db = yield* GraphDatabase
        const version = yield* db.read("MATCH (c:RelayClock) RETURN c.schema AS v", {}, Version)
        const pairs = yield* db.read(
          "MATCH ()-[c:CLUSTER]->() UNWIND c.firsts AS p OPTIONAL MATCH (f:Fact) WHERE f.id = p[1] " +
            "RETURN p[0] AS at, p[1] AS id, f.created_at AS stamp",
          {},
          Pair
        )
        const a = yield* db.read("MATCH (f:Fact {content: 'thread A: which database'}) RETURN f.id AS v", {}, Version)
        return { version: version[0]?.v, pairs, ...(yield* answers(String(a[0]?.v))) }
      }),
      stackOn(graph)
    )
    expect(after.version).toBe(schemaVersion)
    // 7 + 2 + 1 facts, every one of them among its cluster's oldest: each pair names its fact.
    expect(after.pairs).toHaveLength(10)
    for (const p of after.pairs) expect([typeof p.id, p.at]).toEqual(["string", p.stamp])
    const { asOf: _a, ...same } = before
    expect(after).toMatchObject(same)
    expect(after.drift).toEqual({ clusters: 3, drifted: 0, examples: [] })

    // An id that is not its stamp's fact is drift.
    yield* Effect.promise(() =>
      raw(graph, "MATCH ()-[c:CLUSTER]->() WHERE c.size = 2 SET c.firsts = [c.firsts[0], [c.firsts[1][0], 'x']]")
    )
    const drifted = yield* Effect.provide(Effect.flatMap(GraphDatabase, (db) => clusterDrift(db)), stackOn(graph))
    expect(drifted.drifted).toBe(1)
  }).pipe(Effect.scoped), 60_000)
