import { expect, layer } from "@effect/vitest"
import { Context, Effect, FastCheck as fc, Layer, Schema, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { FactContent } from "../../src/domain/content.js"
import { headerLine } from "../../src/domain/memoryRecord.js"
import { StepText } from "../../src/domain/procedures.js"
import { findSecretKind } from "../../src/domain/secretRules.js"
import { verifyStored } from "../../src/layers/factStore/verifyStored.js"
import { recountRuns } from "../../src/layers/procedures/runCounts.js"
import { exportText, importText } from "../../src/layers/transfer/transferText.js"
import { FactStore, type NewFact } from "../../src/services/FactStore.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { SecretScanner } from "../../src/services/SecretScanner.js"
import { saveProcedureVersion } from "../../src/tools/procedureSave.js"
import { propertyRuns } from "../support/propertyRuns.js"
import { onFreshTestClock, relayTestLayer } from "../support/testLayer.js"

/**
 * Export -> import -> export gives the same bytes on generated memories (facts with any text,
 * forks, decisions, compatible records, retractions, confirmations, procedures with their steps, runs and
 * revisions), and the import derives what was not in the file: statuses, open conflicts, fork marks and
 * run counts answer as in the graph exported, and the clock stamps the next write after the newest
 * imported record.
 */

/** A second graph of the same server, its stack built once for the file. */
class Copy extends Context.Tag("test/Copy")<Copy, Context.Context<FactStore | GraphDatabase | SecretScanner>>() {}
const CopyLive = Layer.scoped(Copy, Layer.build(relayTestLayer("transfer_copy")))

const onCopy = <A, E>(effect: Effect.Effect<A, E, FactStore | GraphDatabase | SecretScanner>) =>
  Effect.flatMap(Copy, (ctx) => Effect.provide(effect, ctx))

const wipe = Effect.flatMap(GraphDatabase, (db) => db.write("MATCH (n) DETACH DELETE n"))

// Text a writer might send: quotes, backslashes, newlines, emoji, markup, padding; kept only if a save accepts it.
const contentArb = fc.oneof(
  fc.constantFrom("use postgres 16", "Use  Postgres 16 ", "store tokens in redis", "ship on friday"),
  fc.fullUnicodeString({ minLength: 1, maxLength: 40 }),
  fc.constantFrom("say \"hi\"\\n\n\ttab", "<img src=x onerror=alert(1)>", "😀 emoji ✓", "  padded  ")
).filter((s) => Schema.is(FactContent)(s) && findSecretKind(s) === undefined)

const stepArb = contentArb.filter((s) => Schema.is(StepText)(s))

const step = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("save" as const),
      parent: fc.nat(),
      // Sometimes on a second fact too (builds_on): a merge, its ALSO_ON edge carried by the file.
      also: fc.option(fc.nat(), { freq: 3 }),
      content: contentArb,
      // A detail disagrees with nothing: lost on the way, it would make conflicts appear in the copy.
      factKind: fc.constantFrom(undefined, "detail" as const, "choice" as const)
    })
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("resolve" as const), w: fc.nat(), l: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("compatible" as const), w: fc.nat(), l: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("retract" as const), f: fc.nat() }) },
  // Mostly refused (the fact is not stale); when it lands, the copy must recompute the same stamps.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("confirm" as const), f: fc.nat() }) },
  // A procedure (issue 44) with its checks and steps in order, then runs; a failure may revise it.
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("procedure" as const),
      parent: fc.nat(),
      content: contentArb,
      pre: fc.array(stepArb, { maxLength: 2 }),
      steps: fc.array(stepArb, { minLength: 1, maxLength: 3 })
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("run" as const),
      p: fc.nat(),
      failed: fc.boolean(),
      step: fc.option(fc.integer({ min: 1, max: 3 })),
      note: fc.option(stepArb),
      lesson: fc.option(stepArb, { freq: 3 })
    })
  }
)

type Step = typeof step extends fc.Arbitrary<infer A> ? A : never

/** Writes the steps through the FactStore (the tools' path); refused decisions are simply not made. */
const writeMemory = (steps: ReadonlyArray<Step>) =>
  Effect.gen(function*() {
    const store = yield* FactStore
    const ids: Array<string> = []
    const procedures: Array<string> = []
    for (const s of steps) {
      yield* TestClock.adjust(s.kind === "save" ? 3 : 1)
      const pick = (n: number) => ids[n % ids.length]!
      if (s.kind === "procedure") {
        const pi = s.parent % (ids.length + 1)
        const saved = yield* Effect.either(saveProcedureVersion({
          id: randomUUID(),
          content: s.content,
          writtenBy: "cursor",
          sessionId: "s:1",
          parentId: pi === ids.length ? null : ids[pi]!
        }, { steps: s.steps, preconditions: s.pre, field: "steps" }))
        if (saved._tag === "Right") {
          ids.push(saved.right.saved.fact.id)
          procedures.push(saved.right.saved.fact.id)
        }
      } else if (s.kind === "run") {
        if (procedures.length === 0) continue
        const procedureId = procedures[s.p % procedures.length]!
        const failure = s.failed || s.lesson !== null
        yield* store.recordRun({
          id: randomUUID(),
          procedureId,
          outcome: failure ? "failure" : "success",
          step: failure ? s.step : null,
          note: s.note,
          ranBy: "zed"
        })
        if (s.lesson === null) continue
        // The failure's lesson makes the next version, as relay_record_run does.
        const revised = yield* Effect.either(saveProcedureVersion({
          id: randomUUID(),
          content: null,
          writtenBy: "zed",
          sessionId: "s:1",
          parentId: null,
          revises: { id: procedureId, reason: s.lesson }
        }, { steps: null, preconditions: null, field: "procedure_id" }))
        if (revised._tag === "Right") {
          ids.push(revised.right.saved.fact.id)
          procedures.push(revised.right.saved.fact.id)
        }
      } else if (s.kind === "save") {
        const id = randomUUID()
        const pi = s.parent % (ids.length + 1)
        const parentId = pi === ids.length ? null : ids[pi]!
        const also = s.also === null || parentId === null ? undefined : ids[s.also % ids.length]!
        // A merge past the merge depth is refused: then nothing is saved.
        const saved = yield* Effect.either(store.save({
          id,
          content: s.content,
          writtenBy: "cursor",
          sessionId: "s:1",
          parentId,
          ...(also === undefined || also === parentId ? {} : { alsoOn: [also] }),
          ...(s.factKind === undefined ? {} : { kind: s.factKind })
        }))
        if (saved._tag === "Right") ids.push(id)
      } else if (ids.length > 0) {
        const attempt: Effect.Effect<unknown, unknown> = s.kind === "resolve"
          ? store.resolve({
            callId: randomUUID(),
            winnerId: pick(s.w),
            loserId: pick(s.l),
            reason: "faster",
            resolvedBy: "zed"
          })
          : s.kind === "compatible"
          ? store.compatible({
            callId: randomUUID(),
            factIds: [pick(s.w), pick(s.l)],
            reason: "both",
            resolvedBy: "zed"
          })
          : s.kind === "retract"
          ? store.retract({ callId: randomUUID(), factId: pick(s.f), reason: "wrong", retractedBy: "zed" })
          : store.confirm({ callId: randomUUID(), factId: pick(s.f), reason: "still holds", confirmedBy: "zed" })
        yield* Effect.either(attempt)
      }
    }
  })

const everything = Effect.flatMap(FactStore, (store) =>
  Effect.gen(function*() {
    const facts = yield* store.currentState({
      limit: 1000,
      sessionId: null,
      statuses: null,
      before: null,
      writtenBy: null
    })
    const conflicts = yield* store.openConflicts({ limit: 100, after: null, children: 100, asOf: null })
    // Each procedure whole (version, lineage, checks, steps, counts) and its runs, newest first.
    const procedures = yield* store.procedures(facts.items.map((f) => f.id))
    const runs = yield* Effect.forEach(
      [...procedures.values()],
      (p) => store.runs(p.fact.id, p.runs.success + p.runs.failure, null, 100)
    )
    return { facts, conflicts, procedures: [...procedures.values()], runs }
  }))

/** Both graphs emptied, the clock set, and a save of a fact (its id random) by "a". */
const freshPair = Effect.gen(function*() {
  yield* wipe
  yield* onCopy(wipe)
  const store = yield* FactStore
  yield* TestClock.setTime(Date.parse("2026-05-01T00:00:00.000Z"))
  const save = (content: string, parentId: string | null) =>
    Effect.map(store.save({ id: randomUUID(), content, writtenBy: "a", sessionId: "s", parentId }), (s) => s.fact)
  return { save, store }
})

const forkMarks = Effect.flatMap(
  GraphDatabase,
  (db) =>
    db.read(
      "MATCH (:ForkMark)-[:MARKS]->(p:Fact) RETURN p.id AS id ORDER BY id",
      {},
      Schema.Struct({ id: Schema.String })
    )
)

/** What a save stores for walks through merges (saveMerge.ts): derived again by the import. */
const mergePlaces = Effect.flatMap(
  GraphDatabase,
  (db) =>
    db.read(
      "MATCH (f:Fact) RETURN f.id AS id, f.merge_of AS mergeOf, f.merge_depth AS depth ORDER BY id",
      {},
      Schema.Struct({ id: Schema.String, mergeOf: Schema.NullOr(Schema.String), depth: Schema.NullOr(Schema.Number) })
    )
)

layer(Layer.merge(relayTestLayer("transfer"), CopyLive), { timeout: 60_000 })("export and import", (it) => {
  it.effect.prop(
    "export -> import -> export is byte-identical, and what is derived answers the same",
    [fc.array(step, { minLength: 1, maxLength: 25 })],
    ([steps]) =>
      onFreshTestClock(Effect.gen(function*() {
        yield* wipe
        yield* onCopy(wipe)
        yield* TestClock.setTime(Date.parse("2026-05-01T00:00:00.000Z"))
        yield* writeMemory(steps)
        const first = yield* exportText
        const counts = yield* onCopy(importText(first, { merge: false }))
        const second = yield* onCopy(exportText)
        expect(second).toBe(first)
        const lines = first.trimEnd().split("\n")
        expect(lines[0]).toBe(headerLine)
        expect(
          counts.facts + counts.decisions + counts.compatible + counts.retractions + counts.confirmations + counts.runs
        ).toBe(lines.length - 1)
        const original = yield* everything
        const copied = yield* onCopy(everything)
        expect(copied).toEqual(original)
        expect(yield* onCopy(forkMarks)).toEqual(yield* forkMarks)
        expect(yield* onCopy(mergePlaces)).toEqual(yield* mergePlaces)
        // What the saves stored and what the import derived both keep check-db --verify's local rules.
        const verify = Effect.flatMap(GraphDatabase, (db) => verifyStored(db))
        expect((yield* verify).examples).toEqual([])
        expect((yield* onCopy(verify)).examples).toEqual([])
        // Thread roots and clusters: kept by the saves, derived batch by batch by the import (issue 42).
        expect((yield* verify).clusters.examples).toEqual([])
        expect((yield* onCopy(verify)).clusters.examples).toEqual([])
        // The runs' counts, derived on import, are what check-db --verify recounts.
        expect((yield* onCopy(Effect.flatMap(GraphDatabase, (db) => recountRuns(db, false)))).drifted).toEqual([])
        // The copy's clock moved past the newest imported stamp: a write now lands after it, from a
        // process whose clock is a second behind (one a day behind or more is not followed: clock.ts).
        const newest = lines.length > 1 ? Date.parse(JSON.parse(lines[lines.length - 1]!).created_at) : 0
        yield* TestClock.setTime(Math.max(0, newest - 1000))
        const saved = yield* onCopy(Effect.flatMap(FactStore, (s) =>
          s.save({
            id: randomUUID(),
            content: "after the import",
            writtenBy: "zed",
            sessionId: "s:2",
            parentId: null
          })))
        expect(Date.parse(saved.fact.created_at)).toBeGreaterThan(newest)
      })),
    // Shrinking a failure runs the whole round trip again and again: stopped at 40 s, fast-check
    // reports the smallest counterexample so far instead of the test timing out without one.
    { fastCheck: { numRuns: propertyRuns(12), interruptAfterTimeLimit: 40_000, markInterruptAsFailure: true } }
  )

  it.effect("the import and the bulk path mark the parents a save marks, and no other (a revision, a retracted rival, a merge)", () =>
    Effect.gen(function*() {
      const { save, store } = yield* freshPair
      const at = (content: string, parentId: string | null, more: Partial<NewFact> = {}) =>
        Effect.zipRight(
          TestClock.adjust(5),
          Effect.map(
            store.save({ id: randomUUID(), content, writtenBy: "a", sessionId: "s", parentId, ...more }),
            (s) => s.fact
          )
        )
      // A revision of a kind-less sibling: its save leaves out the fact it supersedes, so no fork.
      const revised = yield* save("where do sessions live", null)
      const old = yield* at("sessions live in redis", revised.id)
      yield* at("sessions live in postgres", revised.id, { revises: { id: old.id, reason: "moved" } })
      // A choice whose rival (same terms) was retracted before it: a FORKS edge, but no fork then.
      const pool = yield* at("how big is the pool", null)
      const rival = yield* at("keep the connection pool at twenty connections", pool.id, { kind: "choice" })
      yield* store.retract({ callId: randomUUID(), factId: rival.id, reason: "wrong", retractedBy: "a" })
      yield* at("keep the connection pool at thirty connections", pool.id, { kind: "choice" })
      // The bulk path after it: a kind-less child that forks with nothing there marks nothing either.
      yield* TestClock.adjust(5)
      yield* store.saveMany([{
        id: randomUUID(),
        content: "a note on pools",
        writtenBy: "a",
        sessionId: "s",
        parentId: pool.id,
        requested: false
      }])
      // A merge that forks (by a FORKS edge) under one parent only: the other gets no mark.
      const left = yield* at("which queue", null)
      const right = yield* at("which broker", null)
      yield* at("use valkey streams for the job queue", left.id, { kind: "choice" })
      yield* at("a note on brokers", right.id)
      yield* at("use kafka streams for the job queue", left.id, { kind: "choice", alsoOn: [right.id] })
      const marked = yield* forkMarks
      expect(marked.map((m) => m.id)).toEqual([left.id])
      yield* onCopy(importText(yield* exportText, { merge: false }))
      expect(yield* onCopy(forkMarks)).toEqual(marked)
    }))

  it.effect("merge skips what is there, adds the rest, and a refused line writes nothing", () =>
    Effect.gen(function*() {
      yield* wipe
      yield* onCopy(wipe)
      const store = yield* FactStore
      yield* TestClock.setTime(Date.parse("2026-05-01T00:00:00.000Z"))
      const root = yield* store.save({
        id: randomUUID(),
        content: "pick a db",
        writtenBy: "a",
        sessionId: "s",
        parentId: null
      })
      yield* TestClock.adjust(5)
      yield* store.save({
        id: randomUUID(),
        content: "postgres",
        writtenBy: "a",
        sessionId: "s",
        parentId: root.fact.id
      })
      const text = yield* exportText
      // The teammate's copy has the root and a fork of their own under it.
      yield* onCopy(importText(text.split("\n").slice(0, 2).join("\n"), { merge: false }))
      yield* TestClock.adjust(5)
      yield* onCopy(
        Effect.flatMap(
          FactStore,
          (s) => s.save({ id: randomUUID(), content: "sqlite", writtenBy: "b", sessionId: "t", parentId: root.fact.id })
        )
      )
      const merged = yield* onCopy(importText(text, { merge: true }))
      expect(merged).toMatchObject({ facts: 1, skipped: 1 })
      const conflicts = yield* onCopy(
        Effect.flatMap(FactStore, (s) => s.openConflicts({ limit: 10, after: null, children: 10, asOf: null }))
      )
      expect(conflicts.conflicts.map((c) => c.children.length)).toEqual([2])
      // A secret on one line: the whole file is refused and the graph is untouched.
      const leaky = text.replace("postgres", "password=hunter2hunter2")
      const refused = yield* Effect.flip(onCopy(importText(leaky, { merge: true })))
      expect(refused.message).toMatch(/^line 3: content looks like it contains a credential/)
      const cyclic = `${text}${
        JSON.stringify({
          kind: "decision",
          created_at: "2026-05-01T00:00:01.000Z",
          winner_id: root.fact.id,
          loser_id: root.fact.id,
          resolved_by: "a",
          reason: "x"
        })
      }\n`
      expect((yield* Effect.flip(onCopy(importText(cyclic, { merge: true })))).message).toMatch(
        /^line 4: winner_fact_id and loser_fact_id/
      )
      expect((yield* Effect.flip(onCopy(importText(text, { merge: false })))).message).toMatch(/already holds facts/)
    }))

  it.effect("a merge that adds a differing child under a decided fork reopens its conflict, and every window agrees", () =>
    Effect.gen(function*() {
      yield* wipe
      yield* onCopy(wipe)
      yield* TestClock.setTime(Date.parse("2026-05-01T00:00:00.000Z"))
      const save = (content: string, parentId: string | null) =>
        Effect.flatMap(
          FactStore,
          (s) => s.save({ id: randomUUID(), content, writtenBy: "a", sessionId: "s", parentId })
        )
      const root = yield* save("pick a db", null)
      yield* TestClock.adjust(5)
      const postgres = yield* save("postgres", root.fact.id)
      yield* TestClock.adjust(5)
      const mysql = yield* save("mysql", root.fact.id)
      // The copy decides the fork: its window closes there.
      yield* onCopy(importText(yield* exportText, { merge: false }))
      yield* TestClock.adjust(5)
      yield* onCopy(Effect.flatMap(FactStore, (s) =>
        s.resolve({
          callId: randomUUID(),
          winnerId: postgres.fact.id,
          loserId: mysql.fact.id,
          reason: "team knows it",
          resolvedBy: "b"
        })))
      const open = Effect.flatMap(
        FactStore,
        (s) => s.openConflicts({ limit: 10, after: null, children: 10, asOf: null })
      )
      expect((yield* onCopy(open)).conflicts).toEqual([])
      // Here a third choice lands under the root; merged into the copy, it disagrees with the winner.
      yield* TestClock.adjust(5)
      const sqlite = yield* save("sqlite", root.fact.id)
      const merged = yield* onCopy(importText(yield* exportText, { merge: true }))
      expect(merged.facts).toBe(1)
      const reopened = (yield* onCopy(open)).conflicts
      expect(reopened.map((c) => [c.parent.id, c.children.map((f) => f.id)])).toEqual([
        [root.fact.id, [sqlite.fact.id, postgres.fact.id]]
      ])
      const verified = yield* onCopy(Effect.flatMap(GraphDatabase, (db) => verifyStored(db)))
      expect([verified.forks, verified.forksDrifted, verified.clusters.drifted]).toEqual([1, 0, 0])
    }))

  it.effect("a confirmation travels: the copy reads the same now and as of before it; a merge older than the graph refuses it", () =>
    Effect.gen(function*() {
      const { save, store } = yield* freshPair
      const root = yield* save("pick a db", null)
      const a = yield* save("postgres", root.id)
      const b = yield* save("postgres 16", a.id)
      yield* TestClock.adjust(5)
      yield* store.retract({ callId: randomUUID(), factId: root.id, reason: "wrong", retractedBy: "a" })
      yield* TestClock.adjust(5)
      const confirmed = yield* store.confirm({ callId: randomUUID(), factId: a.id, reason: "holds", confirmedBy: "a" })
      expect(confirmed.refreshed).toBe(1)
      const text = yield* exportText
      expect(text).toContain(`"kind":"confirmation"`)
      const counts = yield* onCopy(importText(text, { merge: false }))
      expect(counts.confirmations).toBe(1)
      expect(yield* onCopy(exportText)).toBe(text)
      const statuses = (asOf: number | null) =>
        Effect.map(
          Effect.flatMap(FactStore, (s) =>
            s.currentState({ limit: 10, sessionId: null, statuses: null, before: null, asOf })),
          (p) =>
            p.items.map((f) => [f.content, f.status])
        )
      const earlier = confirmed.createdAt - 1
      expect(yield* onCopy(statuses(null))).toEqual(yield* statuses(null))
      expect(yield* onCopy(statuses(earlier))).toEqual(yield* statuses(earlier))
      expect((yield* statuses(null)).map(([, st]) => st)).toEqual(["active", "active", "retracted"])
      expect((yield* statuses(earlier)).map(([, st]) => st)).toEqual(["stale", "stale", "retracted"])
      // The teammate's graph wrote after the confirmation: replayed now it would cover their change too.
      yield* onCopy(wipe)
      const lines = text.trimEnd().split("\n")
      yield* onCopy(importText(lines.filter((l) => !l.includes(`"confirmation"`)).join("\n"), { merge: false }))
      yield* TestClock.adjust(60_000)
      yield* onCopy(
        Effect.flatMap(
          FactStore,
          (s) => s.save({ id: randomUUID(), content: "later", writtenBy: "b", sessionId: "t", parentId: b.id })
        )
      )
      const merged = yield* onCopy(importText(text, { merge: true }))
      expect([merged.confirmations, merged.refused.map((r) => r.rule)]).toEqual([0, ["confirmation_before_graph"]])
    }))

  it.effect("a merge leaves out a decision older than a confirmation below its loser, and reports it", () =>
    Effect.gen(function*() {
      const { save, store } = yield* freshPair
      const root = yield* save("pick a db", null)
      const rival = yield* save("pick a queue", null)
      const a = yield* save("postgres", root.id)
      const b = yield* save("postgres 16", a.id)
      const base = yield* exportText
      yield* onCopy(importText(base, { merge: false }))
      // The copy: the root retracted at T1, `a` confirmed at T3. Here: the rival beats the root at T2.
      yield* TestClock.adjust(10)
      yield* onCopy(
        Effect.flatMap(
          FactStore,
          (s) => s.retract({ callId: randomUUID(), factId: root.id, reason: "wrong", retractedBy: "b" })
        )
      )
      yield* TestClock.adjust(10)
      yield* store.resolve({ callId: randomUUID(), winnerId: rival.id, loserId: root.id, reason: "x", resolvedBy: "a" })
      yield* TestClock.adjust(10)
      yield* onCopy(
        Effect.flatMap(
          FactStore,
          (s) => s.confirm({ callId: randomUUID(), factId: a.id, reason: "holds", confirmedBy: "b" })
        )
      )
      const merged = yield* onCopy(importText(yield* exportText, { merge: true }))
      expect([merged.decisions, merged.refused.map((r) => r.rule)]).toEqual([0, ["before_confirmation"]])
      const statuses = yield* onCopy(
        Effect.flatMap(FactStore, (s) => s.currentState({ limit: 10, sessionId: null, statuses: null, before: null }))
      )
      expect(statuses.items.filter((f) => f.id === a.id || f.id === b.id).map((f) => f.status))
        .toEqual(["active", "active"])
    }))
})
