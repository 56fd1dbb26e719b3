import { expect, layer } from "@effect/vitest"
import { Effect, Either, FastCheck as fc, Schema, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { ContextCursor, ImpactCursor } from "../../src/domain/chainPaging.js"
import type { FactStatus } from "../../src/domain/fact.js"
import { makeFactStoreTest } from "../../src/layers/factStore/FactStoreTest.js"
import {
  type ConflictsAfter,
  type ConflictsPage,
  FactStore,
  type FactStoreShape
} from "../../src/services/FactStore.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { propertyRuns } from "../support/propertyRuns.js"
import { onFreshTestClock, relayTestLayer } from "../support/testLayer.js"

/**
 * The Test layer (layers/factStore/FactStoreTest.ts, the pure model in a Ref) against the live
 * store on a real FalkorDB: the same generated sequence of saves, decisions, compatible records,
 * retractions and confirmations goes to both, and every answer (replies, errors, pages read through
 * their cursors) must be the same. What makes the tool tests that run on the Test layer worth it.
 */

const contents = [
  "use postgres 16",
  "Use  Postgres 16 ",
  "store tokens in redis",
  "use postgres 15",
  "keep the tokens in redis",
  "ship on friday"
] as const

// Spellings of three names: a name is shown as first written, whatever the case (model/names.ts).
const writers = ["Claude", "claude", "CURSOR", "cursor", "zed"] as const

const step = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("save" as const),
      parentPick: fc.nat(),
      alsoPick: fc.option(fc.nat(), { nil: null, freq: 3 }),
      contradictsPick: fc.option(fc.nat(), { nil: null, freq: 4 }),
      content: fc.constantFrom(...contents),
      factKind: fc.constantFrom(null, null, "detail" as const, "choice" as const, "warning" as const),
      writer: fc.constantFrom(...writers),
      session: fc.constantFrom("s1", "s2"),
      dt: fc.constantFrom(0, 1, 5)
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom("resolve" as const, "compatible" as const),
      w: fc.nat(),
      l: fc.nat(),
      // Now and then the previous call again (a retry: same call id) or another call on it.
      again: fc.constantFrom("no", "no", "no", "retry", "other"),
      reason: fc.constantFrom("faster", "simpler"),
      writer: fc.constantFrom(...writers),
      dt: fc.constantFrom(0, 3)
    })
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constantFrom("retract" as const, "confirm" as const),
      f: fc.nat(),
      reason: fc.constantFrom("wrong", "still holds"),
      writer: fc.constantFrom(...writers),
      dt: fc.constantFrom(0, 2)
    })
  }
)

type Step = typeof step extends fc.Arbitrary<infer A> ? A : never

/** An answer as compared: a failure by its tag and message, a success as `shape` leaves it. */
const outcome = <A, E extends { readonly _tag: string; readonly message: string }>(
  e: Either.Either<A, E>,
  shape: (a: A) => unknown
) => Either.isLeft(e) ? { failed: e.left._tag, message: e.left.message } : shape(e.right)

/** Cursors may hold node ids (impact): compared by whether there is one, and each store follows its own. */
const hasNext = <P extends { readonly next_cursor: string | null }>(p: P) => ({
  ...p,
  next_cursor: p.next_cursor !== null
})

/** Every page of a read, through its own cursors. */
const pages = <A, E, K>(
  cursorSchema: Schema.Schema<K, string>,
  read: (cursor: K | null) => Effect.Effect<{ items: ReadonlyArray<A>; next_cursor: string | null }, E>
) =>
  Effect.gen(function*() {
    const out: Array<ReadonlyArray<A>> = []
    let cursor: K | null = null
    for (let n = 0; n < 200; n++) {
      const p: { items: ReadonlyArray<A>; next_cursor: string | null } = yield* read(cursor)
      out.push(p.items)
      if (p.next_cursor === null) return out
      cursor = Schema.decodeSync(cursorSchema)(p.next_cursor)
    }
    return yield* Effect.dieMessage("pages never ended")
  })

const conflictPages = (store: FactStoreShape, size: number, asOf: number | null, thread: string | null) =>
  Effect.gen(function*() {
    const out: Array<unknown> = []
    let after: ConflictsAfter | null = null
    for (let n = 0; n < 200; n++) {
      const got: ConflictsPage = yield* store.openConflicts({ limit: size, children: size, after, asOf, thread })
      out.push(got)
      if (got.next === null) return out
      after = got.next
    }
    return yield* Effect.dieMessage("conflict pages never ended")
  })

const runScenario = (steps: ReadonlyArray<Step>) =>
  Effect.gen(function*() {
    const live = yield* FactStore
    const db = yield* GraphDatabase
    yield* db.write("MATCH (n) DETACH DELETE n")
    yield* TestClock.setTime(Date.parse("2026-05-01T00:00:00.000Z"))
    const test = yield* makeFactStoreTest
    // The live store keeps the names it learned across scenarios: each scenario's names are new.
    const tag = randomUUID().slice(0, 8)
    const name = (w: string) => `${w}-${tag}`

    /** One call to both stores; their answers must agree. */
    const both = <A, E extends { readonly _tag: string; readonly message: string }>(
      what: string,
      call: (s: FactStoreShape) => Effect.Effect<A, E>,
      shape: (a: A) => unknown = (a) => a
    ) =>
      Effect.gen(function*() {
        const l = yield* Effect.either(call(live))
        const t = yield* Effect.either(call(test))
        expect(outcome(t, shape), what).toEqual(outcome(l, shape))
        return l
      })
    const bothPaged = <A, E extends { readonly _tag: string; readonly message: string }, K>(
      what: string,
      cursorSchema: Schema.Schema<K, string>,
      read: (s: FactStoreShape, cursor: K | null) => Effect.Effect<
        { items: ReadonlyArray<A>; next_cursor: string | null },
        E
      >
    ) =>
      Effect.gen(function*() {
        const l = yield* Effect.either(pages(cursorSchema, (c) => read(live, c)))
        const t = yield* Effect.either(pages(cursorSchema, (c) => read(test, c)))
        expect(outcome(t, (x) => x), what).toEqual(outcome(l, (x) => x))
      })

    const ids: Array<string> = []
    const ghost = randomUUID()
    const pick = (n: number) => [...ids, ghost][n % (ids.length + 1)]!
    interface DecisionCall {
      readonly kind: "resolve" | "compatible"
      readonly callId: string
      readonly w: string
      readonly l: string
      readonly reason: string
    }
    let lastDecision: DecisionCall | null = null

    for (const s of steps) {
      yield* TestClock.adjust(s.dt)
      if (s.kind === "save") {
        const id = randomUUID()
        const p = s.parentPick % (ids.length + 1)
        const parentId = p === ids.length ? null : ids[p]!
        const also = parentId === null || s.alsoPick === null ? [] : [pick(s.alsoPick)].filter((x) => x !== parentId)
        const contradicts = s.contradictsPick === null || ids.length === 0 ? [] : [pick(s.contradictsPick)]
        const saved = yield* both(`save ${s.content} under ${parentId}`, (store) =>
          store.save({
            id,
            content: s.content,
            writtenBy: name(s.writer),
            sessionId: s.session,
            parentId,
            kind: s.factKind,
            contradicts,
            ...(also.length > 0 ? { alsoOn: also } : {})
          }), ({ links: _links, ...rest }) => rest)
        if (Either.isRight(saved)) ids.push(id)
      } else if (s.kind === "resolve" || s.kind === "compatible") {
        const call: DecisionCall = s.again !== "no" && lastDecision !== null && lastDecision.kind === s.kind
          ? { ...lastDecision, callId: s.again === "retry" ? lastDecision.callId : randomUUID() }
          : { kind: s.kind, callId: randomUUID(), w: pick(s.w), l: pick(s.l), reason: s.reason }
        lastDecision = call
        if (s.kind === "resolve") {
          yield* both(`resolve ${call.w} over ${call.l}`, (store) =>
            store.resolve({
              callId: call.callId,
              winnerId: call.w,
              loserId: call.l,
              reason: call.reason,
              resolvedBy: name(s.writer),
              staleLimit: 2
            }), (r) => ({ ...r, staleNextCursor: r.staleNextCursor !== null }))
        } else {
          yield* both(`compatible ${call.w} and ${call.l}`, (store) =>
            store.compatible({
              callId: call.callId,
              factIds: [call.w, call.l],
              reason: call.reason,
              resolvedBy: name(s.writer)
            }))
        }
      } else if (s.kind === "retract" && "f" in s) {
        yield* both(`retract ${pick(s.f)}`, (store) =>
          store.retract({
            callId: randomUUID(),
            factId: pick(s.f),
            reason: s.reason,
            retractedBy: name(s.writer),
            staleLimit: 2
          }), (r) => ({ ...r, id: null, staleNextCursor: r.staleNextCursor !== null }))
      } else if ("f" in s) {
        yield* both(
          `confirm ${pick(s.f)}`,
          (store) =>
            store.confirm({ callId: randomUUID(), factId: pick(s.f), reason: s.reason, confirmedBy: name(s.writer) }),
          (c) => ({ ...c, id: null })
        )
      }
      yield* both("open conflicts after the step", (store) => conflictPages(store, 2, null, null))
    }

    // At the end every read, now and as of the middle of the scenario, through every page.
    const stamps = (yield* live.currentState({ limit: 500, sessionId: null, before: null })).items
      .map((f) => Date.parse(f.created_at))
    const middle = stamps.length === 0 ? null : stamps[Math.floor(stamps.length / 2)]!
    for (const asOf of [null, middle]) {
      for (const id of [...ids, ghost]) {
        yield* bothPaged(
          `context of ${id} as of ${asOf}`,
          ContextCursor,
          (s, c) => s.context(id, { limit: 2, cursor: c }, asOf)
        )
        yield* both(`conflicts in the thread of ${id}`, (s) => conflictPages(s, 1, asOf, id))
      }
      const statusSets: ReadonlyArray<ReadonlyArray<FactStatus> | null> = [null, ["active"], ["stale", "superseded"]]
      for (const statuses of statusSets) {
        for (const filter of [{}, { sessionId: "s1" }, { writtenBy: name("claude") }]) {
          yield* both(`current state ${JSON.stringify({ statuses, filter, asOf })}`, (s) =>
            s.currentState({ limit: 3, sessionId: null, before: null, statuses, asOf, ...filter }), hasNext)
        }
      }
      yield* both("lost decisions", (s) =>
        s.lostDecisions(ids, asOf))
    }
    for (const id of [...ids, ghost]) {
      yield* bothPaged(`impact of ${id}`, ImpactCursor, (s, c) =>
        s.impact(id, { limit: 2, cursor: c }))
    }
    yield* both("names", (s) => s.shownNames(writers.map(name), false))
  })

layer(relayTestLayer("test_layer"))("the Test layer answers as the live store", (it) => {
  it.effect.prop(
    "saves, forks, decisions, retractions, confirmations; context, impact, current state, conflicts",
    [fc.array(step, { minLength: 1, maxLength: 18 })],
    ([steps]) => onFreshTestClock(runScenario(steps)),
    { timeout: 300_000, fastCheck: { numRuns: propertyRuns(24) } }
  )
})
