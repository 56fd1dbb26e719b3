import { expect, layer } from "@effect/vitest"
import { Effect, FastCheck as fc, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import type { Fact } from "../../src/domain/fact.js"
import * as Rules from "../../src/domain/model/index.js"
import { FactStore } from "../../src/services/FactStore.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { propertyRuns } from "../support/propertyRuns.js"
import { onFreshTestClock, relayTestLayer } from "../support/testLayer.js"

/**
 * Thread-scoped reads against the pure model: random forests with decisions and retractions,
 * written through the real FactStore; for every fact as the thread and at several as_of stamps,
 * current_state (every status, and the default active) and detect_conflicts must equal the model's
 * answer restricted to the thread (src/domain/model/thread.ts); so must each thread's briefing.
 */
const step = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("save" as const),
      parentPick: fc.nat(),
      root: fc.boolean(),
      content: fc.constantFrom("use postgres", "use mysql", "cache in redis", "ship friday"),
      dt: fc.constantFrom(0, 1, 5)
    })
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("resolve" as const), w: fc.nat(), l: fc.nat(), dt: fc.constantFrom(0, 2) })
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("retract" as const), f: fc.nat(), dt: fc.constantFrom(0, 3) })
  }
)

const ids = (facts: ReadonlyArray<Fact>) => facts.map((f) => f.id)

const runScenario = (steps: ReadonlyArray<typeof step extends fc.Arbitrary<infer A> ? A : never>) =>
  Effect.gen(function*() {
    const store = yield* FactStore
    const db = yield* GraphDatabase
    yield* db.write("MATCH (n) DETACH DELETE n")
    yield* TestClock.setTime(Date.parse("2026-05-01T00:00:00.000Z"))
    const facts: Array<Rules.ModelFact> = []
    const supersedes: Array<Rules.ModelResolution> = []
    const retractions: Array<Rules.ModelRetraction> = []
    for (const s of steps) {
      yield* TestClock.adjust(s.dt)
      if (s.kind === "save") {
        const parentId = s.root || facts.length === 0 ? null : facts[s.parentPick % facts.length]!.id
        const id = randomUUID()
        const saved = yield* store.save({ id, content: s.content, writtenBy: "zed", sessionId: "t", parentId })
        facts.push({ id, content: s.content, parentId, createdAt: Date.parse(saved.fact.created_at) })
      } else if (s.kind === "resolve" && facts.length > 1) {
        const [winner, loser] = [facts[s.w % facts.length]!.id, facts[s.l % facts.length]!.id]
        const r = yield* Effect.either(
          store.resolve({ callId: randomUUID(), winnerId: winner, loserId: loser, reason: "r", resolvedBy: "zed" })
        )
        if (r._tag === "Right" && !r.right.alreadyResolved) {
          supersedes.push({ winner, loser, createdAt: r.right.createdAt })
        }
      } else if (s.kind === "retract" && facts.length > 0) {
        const target = facts[s.f % facts.length]!.id
        const r = yield* store.retract({ callId: randomUUID(), factId: target, reason: "wrong", retractedBy: "zed" })
        if (!r.alreadyRetracted) retractions.push({ fact: target, createdAt: r.createdAt })
      }
    }
    const model: Rules.GraphModel = { facts, supersedes, retractions }
    const stamps = [...facts, ...supersedes, ...retractions].map((x) => x.createdAt!).sort((a, b) => a - b)
    const times = [null, stamps[Math.floor(stamps.length / 3)]!, stamps[Math.floor((2 * stamps.length) / 3)]!]
    for (const t of times) {
      const then = t === null ? model : Rules.asOf(model, t)
      for (const f of facts) {
        const members = Rules.thread(then, f.id)
        const state = yield* Effect.either(
          store.currentState({ limit: 100, sessionId: null, before: null, asOf: t, thread: f.id })
        )
        if (members.size === 0) {
          expect(state._tag === "Left" && state.left._tag, `thread of ${f.id} before it was saved`).toBe("FactNotFound")
          continue
        }
        expect(state._tag).toBe("Right")
        if (state._tag !== "Right") continue
        expect(ids(state.right.items), `thread of ${f.id} as of ${t}`).toEqual(
          Rules.currentState(then, null).filter((id) => members.has(id))
        )
        for (const x of state.right.items) expect(x.status).toBe(Rules.status(then, x.id))
        const active = yield* store.currentState({
          limit: 100,
          sessionId: null,
          before: null,
          asOf: t,
          thread: f.id,
          statuses: ["active"]
        })
        expect(ids(active.items)).toEqual(Rules.currentState(then, ["active"]).filter((id) => members.has(id)))
        const conflicts = yield* store.openConflicts({ limit: 100, after: null, asOf: t, thread: f.id })
        expect(conflicts.conflicts.map((c) => [c.parent.id, ids(c.children)])).toEqual(
          Rules.openConflicts(then).filter((c) => members.has(c.parent)).map((c) => [c.parent, c.children])
        )
      }
    }
    // Briefings of each thread over the whole window: the model's briefing restricted to the thread
    // (decisions by their loser).
    const since = (stamps[0] ?? 0) - 1
    for (const f of facts.filter((_, i) => i % 2 === 0)) {
      const b = yield* store.briefing({ reader: "reader", since, limit: 100, after: null, thread: f.id })
      const members = Rules.thread(model, f.id)
      const expected = Rules.briefing(model, "reader", since, b.asOf)
      expect(ids(b.newFacts)).toEqual(expected.newFacts.filter((id) => members.has(id)))
      expect(b.decisions.map((d) => [d.winner.id, d.loser.id])).toEqual(
        expected.decisions.filter(([, loser]) => members.has(loser))
      )
      expect(b.retractions.map((r) => r.fact.id)).toEqual(expected.retractions.filter((id) => members.has(id)))
      expect(b.openConflicts.map((c) => [c.parent.id, ids(c.children)])).toEqual(
        expected.openConflicts.filter((c) => members.has(c.parent)).map((c) => [c.parent, c.children])
      )
      expect(b.next).toBeNull()
    }
  })

layer(relayTestLayer("thread"))("thread-scoped reads agree with the pure rules", (it) => {
  it.effect.prop(
    "current state, conflicts and briefing of every thread, now and as of earlier stamps",
    [fc.array(step, { minLength: 1, maxLength: 16 })],
    ([steps]) => onFreshTestClock(runScenario(steps)),
    { timeout: 300_000, fastCheck: { numRuns: propertyRuns(25) } }
  )
})
