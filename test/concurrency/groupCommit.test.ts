import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Either, FastCheck as fc, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { DatabaseError } from "../../src/domain/errors.js"
import * as Rules from "../../src/domain/model/index.js"
import { requestFactId } from "../../src/domain/requestId.js"
import { makeFactStore } from "../../src/layers/factStore/FactStoreLive.js"
import { suggestLinks } from "../../src/layers/factStore/links.js"
import { verifyStored } from "../../src/layers/factStore/verifyStored.js"
import type { FactStoreShape } from "../../src/services/FactStore.js"
import type { NewFact } from "../../src/services/factStore/requests.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { propertyRuns } from "../support/propertyRuns.js"
import { onFreshTestClock, relayTestLayer } from "../support/testLayer.js"

/**
 * Group commit (src/layers/factStore/groupCommit.ts) against the sequential model: a wave of saves
 * fired at once goes as few statements, and what each save answers is what it would answer had the
 * saves run one after another in the order of their stamps (domain/model/save.ts), with the
 * memory's capacity, request_id and a missing parent each failing only the save it concerns.
 */

const contents = ["use postgres 16", "Use  Postgres 16", "use postgres 15", "ship on friday", "ship on monday"]

const saveArb = fc.record({
  // 0-1: one of the run's two roots; 2: a parent that does not exist; 3: a new root.
  parent: fc.constantFrom(0, 0, 1, 1, 2, 3),
  content: fc.constantFrom(...contents),
  kind: fc.constantFrom(null, null, "detail" as const, "choice" as const),
  writer: fc.constantFrom("cursor", "zed"),
  // A request_id shared with other saves of the wave: the same fact, or refused when it says otherwise.
  requestId: fc.option(fc.constantFrom("r1", "r2"), { nil: null, freq: 3 })
})

const waveArb = fc.record({
  saves: fc.array(saveArb, { minLength: 2, maxLength: 12 }),
  // How many new facts the memory may still take (RELAY_MAX_FACTS past what it holds).
  room: fc.integer({ min: 1, max: 14 })
})

const CountRow = Schema.Struct({ n: Schema.Number })

const twiceMarked = "MATCH (p:Fact) WHERE indegree(p, 'MARKS') > 1 RETURN count(p) AS n"
const termsOff = "MATCH (f:Fact) UNWIND f.terms AS t WITH DISTINCT f, t WITH t, count(*) AS n " +
  "OPTIONAL MATCH (x:Term {term: t}) WITH n, head([(x)-[d]->(x) WHERE type(d) = 'DOCS' | d.n]) AS stored " +
  "WHERE stored IS NULL OR stored <> n RETURN count(*) AS n"

/** The real database, with the write and the read statements it is sent noted. */
const noting = (db: GraphDatabase["Type"]) => {
  const writes: Array<string> = []
  const reads: Array<string> = []
  const noted = (run: GraphDatabase["Type"]["write"], to: Array<string>) =>
    ((cypher: string, params?: never, row?: never) => {
      to.push(cypher)
      return row === undefined ? run(cypher, params) : run(cypher, params ?? {}, row)
    }) as GraphDatabase["Type"]["write"]
  const sent: GraphDatabase["Type"] = { ...db, write: noted(db.write, writes), read: noted(db.read, reads) }
  return { sent, writes, reads }
}

/** A store of its own on the test's graph, with RELAY_MAX_FACTS as given. */
const storeWithRoom = (maxFacts: number) =>
  makeFactStore.pipe(
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["RELAY_MAX_FACTS", String(maxFacts)]])))
  )

/** A store of its own on the test's graph (room enough), its statements noted, for the scope of `body`. */
const withNotedStore = <A, E>(
  body: (store: FactStoreShape, noted: ReturnType<typeof noting>, db: GraphDatabase["Type"]) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const db = yield* GraphDatabase
    const noted = noting(db)
    return yield* Effect.scoped(
      Effect.flatMap(Effect.provideService(storeWithRoom(10_000_000), GraphDatabase, noted.sent), (store) =>
        body(store, noted, db))
    )
  })

layer(relayTestLayer("group_commit"))((it) => {
  it.effect("saves fired at once go as one statement and answer as if run in stamp order", () =>
    Effect.gen(function*() {
      const { sent, writes } = noting(yield* GraphDatabase)
      yield* Effect.scoped(Effect.gen(function*() {
        const store = yield* Effect.provideService(storeWithRoom(10_000_000), GraphDatabase, sent)
        const root = yield* store.save(fact("the plan", null, "cursor"))
        const before = writes.length
        const saved = yield* Effect.all(
          Array.from({ length: 8 }, (_, i) => store.save(fact(`option ${i % 3}`, root.fact.id, "zed"))),
          { concurrency: "unbounded" }
        )
        const statements = writes.slice(before)
        // The first may go alone (nothing was in flight); the rest queue behind it and go together.
        expect(statements.length).toBeLessThanOrEqual(2)
        expect(statements.some((s) => s.includes("UNWIND $batch"))).toBe(true)
        const stamps = saved.map((s) => Date.parse(s.fact.created_at))
        expect(new Set(stamps).size).toBe(8)
        const order = [...saved].sort((a, b) => Date.parse(a.fact.created_at) - Date.parse(b.fact.created_at))
        // Each later save sees the earlier ones as siblings: one of the same text is its duplicate.
        for (const [k, s] of order.entries()) {
          const earlier = order.slice(0, k)
          const same = earlier.find((e) => e.fact.content === s.fact.content)
          expect(s.duplicateOf?.id ?? null).toBe(same?.fact.id ?? null)
        }
      }))
    }).pipe(onFreshTestClock))

  it.effect("the links reads of a wave go as one read statement and name what each save's lone read does", () =>
    withNotedStore((store, { reads }, db) =>
      Effect.gen(function*() {
        // Four threads a group of rare words, one fact of them each: the first holds all four words,
        // the others three (ranked below it); a wave save says a group's words again, so its links are
        // 3 of that group's facts (the first, then the latest), never one of its own thread (the last
        // save is under a group's first) nor of the wave (no two share a group).
        const group = (g: number) => ["quill", "ferry", "anvil", "sorrel"].map((w) => `${w}${g}z`)
        const seeds = yield* Effect.forEach(
          Array.from({ length: 24 }, (_, i) => ({ g: Math.floor(i / 4), k: i % 4 })),
          ({ g, k }) => store.save(fact(`${group(g).slice(0, k === 0 ? 4 : 3).join(" ")} seed ${k}`, null, "cursor"))
        )
        const before = reads.length
        const inputs = Array.from({ length: 10 }, (_, i) =>
          i < 6
            // The last under a seed of its group: that seed is of its own thread, no link.
            ? fact(group(i).reverse().join(" "), i === 5 ? seeds[20]!.fact.id : null, "zed")
            // Words no other fact holds: no rare term, no link.
            : fact(`lone${i}q solo${i}q`, null, "zed"))
        const saved = yield* Effect.all(inputs.map((f) => store.save(f)), { concurrency: "unbounded" })
        const linkReads = reads.slice(before).filter((c) => c.includes("queryNodes"))
        expect(linkReads.some((c) => c.includes("UNWIND $batch"))).toBe(true)
        expect(linkReads.length).toBeLessThan(saved.length)
        // Each save's lone read, now (nothing the wave wrote is a link of another of the wave).
        const lone = yield* Effect.forEach(saved, (s) => suggestLinks(db, { read: db.read }, s.fact, null))
        expect(saved.map((s) => s.links.map((l) => l.id))).toEqual(lone.map((l) => l.map((x) => x.id)))
        expect(saved.map((s) => s.links.length)).toEqual([3, 3, 3, 3, 3, 3, 0, 0, 0, 0])
        expect(saved[0]!.links.map((l) => l.id)).toEqual([0, 3, 2].map((k) => seeds[k]!.fact.id))
        expect(saved[5]!.links.map((l) => l.id)).toEqual([23, 22, 21].map((k) => seeds[k]!.fact.id))
      })
    ).pipe(onFreshTestClock))

  it.effect("a wave under a retracted and a revised fact stores each of their children stale, as alone", () =>
    withNotedStore((store, { writes }, db) =>
      Effect.gen(function*() {
        const wrong = yield* store.save(fact("the withdrawn plan", null, "cursor"))
        const old = yield* store.save(fact("the old plan", null, "cursor"))
        const kept = yield* store.save(fact("the kept plan", null, "cursor"))
        yield* store.retract({ callId: randomUUID(), factId: wrong.fact.id, reason: "wrong", retractedBy: "cursor" })
        yield* store.save({ ...fact("the new plan", null, "cursor"), revises: { id: old.fact.id, reason: "newer" } })
        const parents = [wrong, old, kept]
        const before = writes.length
        // The batch reads each parent's retractions and decisions (staleness.ts inheritedStale) itself.
        const saved = yield* Effect.all(
          Array.from({ length: 9 }, (_, i) => store.save(fact(`step ${i}`, parents[i % 3]!.fact.id, "zed"))),
          { concurrency: "unbounded" }
        )
        expect(writes.slice(before).some((s) => s.includes("UNWIND $batch"))).toBe(true)
        expect(saved.map((s) => s.fact.status)).toEqual(
          Array.from({ length: 9 }, (_, i) => i % 3 === 2 ? "active" : "stale")
        )
        expect((yield* verifyStored(db)).drifted).toBe(0)
      })
    ).pipe(onFreshTestClock))

  it.effect("a batch the database wrote but replicas did not confirm answers not_replicated to each save, rerun for none", () =>
    Effect.gen(function*() {
      const real = yield* GraphDatabase
      const { sent, writes } = noting(real)
      // The batch statement runs (it lands on the primary), then fails as a replica WAIT that timed out.
      const unconfirmed: GraphDatabase["Type"] = {
        ...sent,
        write: ((cypher: string, params?: never, row?: never) => {
          const run = row === undefined ? sent.write(cypher, params) : sent.write(cypher, params ?? {}, row)
          return cypher.includes("UNWIND $batch")
            ? Effect.zipRight(
              run,
              Effect.fail(new DatabaseError({ reason: "not_replicated", detail: "0 of 1 replicas confirmed" }))
            )
            : run
        }) as GraphDatabase["Type"]["write"]
      }
      yield* Effect.scoped(Effect.gen(function*() {
        const store = yield* Effect.provideService(storeWithRoom(10_000_000), GraphDatabase, unconfirmed)
        const root = yield* store.save(fact("the replicated plan", null, "cursor"))
        const before = writes.length
        const answers = yield* Effect.all(
          Array.from({ length: 8 }, (_, i) => Effect.either(store.save(fact(`step ${i}`, root.fact.id, "zed")))),
          { concurrency: "unbounded" }
        )
        const statements = writes.slice(before)
        const batches = statements.filter((c) => c.includes("UNWIND $batch")).length
        expect(batches).toBeGreaterThanOrEqual(1)
        // The saves of a batch answer its failure; none is sent again alone (a rerun would find its
        // fact and answer it as confirmed). Only a save that went before the rest queued went alone.
        expect(statements.length - batches).toBeLessThanOrEqual(1)
        const failed = answers.filter(Either.isLeft).map((a) => (a.left as DatabaseError).reason)
        expect(failed.length).toBeGreaterThanOrEqual(7)
        expect(new Set(failed)).toEqual(new Set(["not_replicated"]))
      }))
    }).pipe(onFreshTestClock))

  it.effect.prop(
    "a concurrent wave answers what the sequential model does",
    [waveArb],
    ([wave]) =>
      Effect.gen(function*() {
        const db = yield* GraphDatabase
        const held = (yield* db.read("MATCH (f:Fact) RETURN count(f) AS n", {}, CountRow))[0]!.n
        yield* Effect.scoped(Effect.gen(function*() {
          // The roots first, alone; then the wave, which may fill the memory.
          const roots = yield* Effect.flatMap(
            storeWithRoom(10_000_000),
            (s) => Effect.all([s.save(fact("the plan", null, "cursor")), s.save(fact("the stack", null, "cursor"))])
          )
          const { sent, writes } = noting(db)
          const store = yield* Effect.provideService(storeWithRoom(held + 2 + wave.room), GraphDatabase, sent)
          const tag = randomUUID().slice(0, 8)
          const inputs = wave.saves.map((s): NewFact => ({
            ...fact(
              s.content,
              s.parent < 2 ? roots[s.parent]!.fact.id : s.parent === 2 ? randomUUID() : null,
              s.writer,
              s.kind
            ),
            ...(s.requestId === null ? {} : { id: requestFactId(s.writer, `${tag}-${s.requestId}`) })
          }))
          const answers = yield* Effect.all(inputs.map((f) => Effect.either(store.save(f))), {
            concurrency: "unbounded"
          })
          // One statement a kind of save (a root's, a child's), and one that went before the rest queued.
          expect(writes.length).toBeLessThanOrEqual(3)
          let model: Rules.GraphModel = {
            facts: roots.map((r) => ({
              id: r.fact.id,
              content: r.fact.content,
              parentId: null,
              createdAt: Date.parse(r.fact.created_at)
            })),
            supersedes: []
          }
          const rootStamp = Math.max(...model.facts.map((f) => f.createdAt))
          const landed = answers.flatMap((a, i) => Either.isRight(a) ? [{ i, saved: a.right }] : [])
          // Replayed in stamp order (a repeat of a request_id answers the fact its first made).
          landed.sort((a, b) => Date.parse(a.saved.fact.created_at) - Date.parse(b.saved.fact.created_at) || a.i - b.i)
          const made = new Map<string, number>()
          for (const { i, saved } of landed) {
            const input = inputs[i]!
            const at = Date.parse(saved.fact.created_at)
            expect(saved.fact.id).toBe(input.id)
            expect(saved.fact.content).toBe(input.content)
            if (made.has(input.id)) {
              expect(at, "a repeated request_id answers its one fact").toBe(made.get(input.id))
              continue
            }
            expect(at, "stamps rise past what was there").toBeGreaterThan(rootStamp)
            const want = Rules.saveOutcome(model, input.parentId, input.content, input.kind as Rules.ModelKind | null)
            expect({
              fork: saved.forkSiblings.map((f) => f.id),
              total: saved.siblingsTotal,
              duplicate: saved.duplicateOf?.id ?? null,
              compared: saved.compared.map((f) => f.id),
              comparedTotal: saved.comparedTotal
            }).toEqual({
              fork: want.forkSiblings,
              total: want.siblingsTotal,
              duplicate: want.duplicateOf,
              compared: want.compared,
              comparedTotal: want.comparedTotal
            })
            made.set(input.id, at)
            model = {
              ...model,
              facts: [...model.facts, {
                id: input.id,
                content: input.content,
                parentId: input.parentId,
                createdAt: at,
                kind: (input.kind ?? null) as Rules.ModelKind | null
              }]
            }
          }
          expect(new Set(made.values()).size, "one stamp a new fact").toBe(made.size)
          // What failed, failed for its own reason, as it would have in some order of the saves.
          const full = answers.some((a) => Either.isLeft(a) && a.left._tag === "MemoryFull")
          expect(made.size).toBeLessThanOrEqual(wave.room)
          if (full) expect(made.size).toBe(wave.room)
          for (const [i, a] of answers.entries()) {
            if (Either.isRight(a)) continue
            const input = inputs[i]!
            // Its request_id made a fact that says something else (content, kind or parent).
            const other = landed.find((l) => l.saved.fact.id === input.id)
            const otherInput = other === undefined ? undefined : inputs[other.i]!
            const taken = otherInput !== undefined && (otherInput.content !== input.content ||
              (otherInput.kind ?? null) !== (input.kind ?? null) || otherInput.parentId !== input.parentId)
            const allowed = [
              ...(taken ? ["InvalidInput"] : []),
              ...(full && !made.has(input.id) ? ["MemoryFull"] : []),
              ...(wave.saves[i]!.parent === 2 ? ["FactNotFound"] : [])
            ]
            expect(allowed, `save ${i} failed for a reason of its own`).toContain(a.left._tag)
          }
          // What the batches stored beside the facts: staleness, fork windows and marks, FORKS pairs,
          // clusters (check-db --verify), one mark a parent, and each term counted once a fact holding it.
          const v = yield* verifyStored(db)
          expect([v.drifted, v.forksDrifted, v.pairsDrifted, v.unmarked, v.clusters.drifted]).toEqual([0, 0, 0, 0, 0])
          expect((yield* db.read(twiceMarked, {}, CountRow))[0]!.n).toBe(0)
          expect((yield* db.read(termsOff, {}, CountRow))[0]!.n).toBe(0)
        }))
      }).pipe(onFreshTestClock),
    { fastCheck: { numRuns: propertyRuns(100) } }
  )
})

const fact = (
  content: string,
  parentId: string | null,
  writtenBy: string,
  kind: "detail" | "choice" | null = null
): NewFact => ({
  id: randomUUID(),
  content,
  writtenBy,
  sessionId: "wave",
  parentId,
  kind
})
