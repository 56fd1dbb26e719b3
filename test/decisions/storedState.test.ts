import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { schemaVersion } from "../../src/layers/database/schemaVersion.js"
import { verifyStored } from "../../src/layers/factStore/verifyStored.js"
import { toFailureResult } from "../../src/mcp/callTool.js"
import { FactStore } from "../../src/services/FactStore.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ownGraph, raw, stackOn } from "../support/ownGraph.js"

/**
 * Issue 22: staleness is stored on every fact (layers/factStore/staleness.ts). A graph written
 * before that is migrated by the first process that uses it; `check-db --verify` finds a stamp its
 * edges do not give; a graph a newer Relay wrote is read here but never written.
 */

/**
 * A memory with every way to be stale: root <- a <- b <- c, a superseded by its sibling a2 (so b
 * and c stale), c2 saved under b after that (stale at birth), d retracted with e under it, and a
 * later decision on b (its dependents were stale already: they keep the earlier stamp).
 */
const buildMemory = Effect.gen(function*() {
  const store = yield* FactStore
  const save = (content: string, parentId: string | null) =>
    Effect.map(
      store.save({ id: randomUUID(), content, writtenBy: "w", sessionId: "s", parentId }),
      (s) => s.fact
    )
  const root = yield* save("we ship on Fridays", null)
  const a = yield* save("use postgres", root.id)
  const a2 = yield* save("use sqlite", root.id)
  const b = yield* save("postgres 16", a.id)
  const c = yield* save("with pgbouncer", b.id)
  yield* store.resolve({ callId: randomUUID(), winnerId: a2.id, loserId: a.id, reason: "smaller", resolvedBy: "lead" })
  const c2 = yield* save("with replicas", b.id)
  const d = yield* save("deploy by hand", root.id)
  const e = yield* save("from a laptop", d.id)
  yield* store.retract({ callId: randomUUID(), factId: d.id, reason: "wrong", retractedBy: "lead" })
  const b2 = yield* save("postgres 15", a.id)
  yield* store.resolve({ callId: randomUUID(), winnerId: b2.id, loserId: b.id, reason: "older", resolvedBy: "lead" })
  return { root, a, a2, b, c, c2, d, e, b2 }
})

/** Every fact's status now and at every stamp of the memory. */
const statusesEverywhere = Effect.gen(function*() {
  const store = yield* FactStore
  const all = (asOf: number | null) =>
    Effect.map(
      store.currentState({ limit: 100, sessionId: null, before: null, statuses: null, asOf }),
      (p) => p.items.map((f) => `${f.content}: ${f.status}`).sort()
    )
  const now = yield* all(null)
  const stamps = (yield* store.currentState({ limit: 100, sessionId: null, before: null, statuses: null }))
    .items.map((f) => Date.parse(f.created_at))
  const past = yield* Effect.forEach(stamps, (t) => all(t + 1))
  return { now, past }
})

it.live(
  "an older graph is migrated on first use: the same statuses at every time, and verify finds no drift",
  () =>
    Effect.gen(function*() {
      const graph = yield* ownGraph("migrate")
      const before = yield* Effect.provide(
        Effect.zipRight(buildMemory, statusesEverywhere),
        stackOn(graph)
      )
      expect(before.now).toContain("with pgbouncer: stale")
      expect(before.now).toContain("with replicas: stale")
      expect(before.now).toContain("from a laptop: stale")
      // As a Relay before issue 22 left it: no stamp on any fact, no version on the graph.
      yield* Effect.promise(() => raw(graph, "MATCH (f:Fact) REMOVE f.stale_at"))
      yield* Effect.promise(() => raw(graph, "MATCH (c:RelayClock) REMOVE c.schema"))
      const after = yield* Effect.provide(
        Effect.gen(function*() {
          const statuses = yield* statusesEverywhere
          const verified = yield* Effect.flatMap(GraphDatabase, (db) => verifyStored(db))
          return { statuses, verified }
        }),
        stackOn(graph)
      )
      expect(after.statuses).toEqual(before)
      expect(after.verified).toMatchObject({ facts: 9, drifted: 0, examples: [], forksDrifted: 0 })
      const version = yield* Effect.promise(() => raw(graph, "MATCH (c:RelayClock) RETURN c.schema AS v"))
      expect(version.data).toEqual([{ v: schemaVersion }])
    }).pipe(Effect.scoped),
  60_000
)

const saveOne = (graph: string, content: string) =>
  Effect.provide(
    Effect.flatMap(
      FactStore,
      (store) => store.save({ id: randomUUID(), content, writtenBy: "w", sessionId: "s", parentId: null })
    ),
    stackOn(graph)
  )

const clockOf = (graph: string) =>
  Effect.promise(() =>
    raw(
      graph,
      "MATCH (c:RelayClock) OPTIONAL MATCH (c)-[k:CLOCK]->(c) " +
        "RETURN c.schema AS schema, c.facts AS nodeFacts, collect(k.last) AS last, collect(k.facts) AS facts"
    )
  ).pipe(
    Effect.map((r) => r.data?.[0] as { schema: number; nodeFacts: number; last: Array<number>; facts: Array<number> })
  )

it.live(
  "a schema-2 graph keeps its counters on nodes: schema 3's first write counts there once and makes the edge the next one counts on",
  () =>
    Effect.gen(function*() {
      const graph = yield* ownGraph("counters")
      yield* Effect.provide(buildMemory, stackOn(graph))
      // As a schema-2 Relay left it: the clock's and each term's counts on the nodes.
      yield* Effect.promise(() =>
        raw(
          graph,
          "MATCH (c:RelayClock)-[k:CLOCK]->(c) SET c.last = k.last, c.facts = k.facts, c.bytes = k.bytes, " +
            "c.docs = k.docs, c.terms = k.terms, c.schema = 2 DELETE k"
        )
      )
      yield* Effect.promise(() => raw(graph, "MATCH (t:Term)-[d:DOCS]->(t) SET t.docs = d.n DELETE d"))
      const node = (yield* Effect.promise(() =>
        raw(
          graph,
          "MATCH (c:RelayClock), (t:Term {term: 'postgr'}) RETURN c.last AS last, c.facts AS facts, t.docs AS docs"
        )
      )).data?.[0] as { last: number; facts: number; docs: number }
      expect(node.facts).toBe(9)
      const first = yield* saveOne(graph, "postgres 17 next")
      expect(yield* clockOf(graph)).toEqual({ schema: schemaVersion, nodeFacts: 10, last: [], facts: [] })
      const second = yield* saveOne(graph, "postgres 18 later")
      expect(yield* clockOf(graph)).toEqual({
        schema: schemaVersion,
        nodeFacts: 10,
        last: [Date.parse(second.fact.created_at)],
        facts: [11]
      })
      expect(Date.parse(second.fact.created_at)).toBeGreaterThan(Date.parse(first.fact.created_at))
      expect(Date.parse(first.fact.created_at)).toBeGreaterThan(node.last)
      const docs = (yield* Effect.promise(() =>
        raw(graph, "MATCH (t:Term {term: 'postgr'})-[d:DOCS]->(t) RETURN collect(d.n) AS n")
      )).data?.[0] as { n: Array<number> }
      expect(docs.n).toEqual([node.docs + 2])
    }).pipe(Effect.scoped),
  60_000
)

it.live(
  "two CLOCK edges (none is ever made twice; were one made) are read as one clock: a save lands once and both move on",
  () =>
    Effect.gen(function*() {
      const graph = yield* ownGraph("twoclocks")
      yield* Effect.provide(buildMemory, stackOn(graph))
      yield* saveOne(graph, "the edge is made")
      yield* Effect.promise(() =>
        raw(graph, "MATCH (c:RelayClock)-[k:CLOCK]->(c) CREATE (c)-[:CLOCK {last: k.last - 5, facts: 3}]->(c)")
      )
      const before = yield* clockOf(graph)
      expect([...before.facts].sort()).toEqual([10, 3].sort())
      const saved = yield* saveOne(graph, "one fact, however many clocks")
      const after = yield* clockOf(graph)
      expect(after.facts).toEqual([11, 11])
      expect(after.last).toEqual([Date.parse(saved.fact.created_at), Date.parse(saved.fact.created_at)])
      expect(Date.parse(saved.fact.created_at)).toBeGreaterThan(Math.max(...before.last))
      const count = (yield* Effect.promise(() =>
        raw(graph, "MATCH (f:Fact {content: 'one fact, however many clocks'}) RETURN count(f) AS n")
      )).data?.[0] as { n: number }
      expect(count.n).toBe(1)
    }).pipe(Effect.scoped),
  60_000
)

it.live("verify names a stamp changed by hand, and a stamp left out", () =>
  Effect.gen(function*() {
    const graph = yield* ownGraph("verify")
    const stack = stackOn(graph)
    const memory = yield* Effect.provide(buildMemory, stack)
    const verify = Effect.provide(Effect.flatMap(GraphDatabase, (db) => verifyStored(db)), stack)
    expect((yield* verify).drifted).toBe(0)
    // c is stale from a's decision; moved later by hand, it no longer agrees with b.
    yield* Effect.promise(() =>
      raw(graph, "MATCH (f:Fact {id: $id}) SET f.stale_at = f.stale_at + 1", { id: memory.c.id })
    )
    yield* Effect.promise(() => raw(graph, "MATCH (f:Fact {id: $id}) REMOVE f.stale_at", { id: memory.a2.id }))
    const found = yield* verify
    expect(found.drifted).toBe(2)
    expect(found.examples.map((d) => d.id).sort()).toEqual([memory.a2.id, memory.c.id].sort())
    expect(found.examples.find((d) => d.id === memory.a2.id)?.stored).toBeNull()
  }).pipe(Effect.scoped), 60_000)

it.live(
  "a graph a newer Relay wrote is read, never written: one clear sentence, nothing written",
  () =>
    Effect.gen(function*() {
      const graph = yield* ownGraph("newer")
      const memory = yield* Effect.provide(buildMemory, stackOn(graph))
      yield* Effect.promise(() => raw(graph, "MATCH (c:RelayClock) SET c.schema = $v", { v: schemaVersion + 1 }))
      yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* FactStore
          const read = yield* store.context(memory.c.id, { limit: 10, cursor: null })
          expect(read.items.map((f) => f.status)).toEqual(["active", "superseded", "superseded", "stale"])
          const refused = yield* Effect.flip(
            store.save({ id: randomUUID(), content: "one more", writtenBy: "w", sessionId: "s", parentId: null })
          )
          expect(refused._tag).toBe("DatabaseError")
          const shown = toFailureResult(null, refused as never).structuredContent as {
            error: { code: string; message: string }
          }
          expect(shown.error.code).toBe("unavailable")
          expect(shown.error.message).toMatch(/newer version of Relay.*nothing was written/)
        }),
        stackOn(graph)
      )
      const facts = yield* Effect.promise(() => raw(graph, "MATCH (f:Fact) RETURN count(f) AS n"))
      expect(facts.data).toEqual([{ n: 9 }])
    }).pipe(Effect.scoped),
  60_000
)
