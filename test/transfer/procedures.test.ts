import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { exportFormat, headerLine } from "../../src/domain/memoryRecord.js"
import { recountRuns } from "../../src/layers/procedures/runCounts.js"
import { exportText, importText } from "../../src/layers/transfer/transferText.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { failingOnce, withDatabase } from "../support/failingOnce.js"
import { ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * Issue 44, export and import: format 2 carries each procedure's version, lineage, checks and steps
 * (in order) and its runs, so a memory with procedures, a revision and runs (a failure with its step
 * and note, a task's run) round-trips byte-identical; the copy's counts are what check-db --verify
 * recounts; a rerun with --merge counts no run twice; a batch of runs lands whole or not at all; a
 * file of format 1 still imports; steps, checks and notes are checked as the tools check them.
 */
const stack = () => relayTestLayer("transfer_procedures")
type Services = Layer.Layer.Success<ReturnType<typeof stack>>

/** A second graph of the same server, its whole stack (the tools read it too). */
class Copy extends Context.Tag("test/ProcedureCopy")<Copy, Context.Context<Services>>() {}
const CopyLive = Layer.scoped(Copy, Layer.build(stack()))
const onCopy = <A, E>(effect: Effect.Effect<A, E, Services>) =>
  Effect.flatMap(Copy, (ctx) => Effect.provide(effect, ctx))

const wipe = Effect.flatMap(GraphDatabase, (db) => db.write("MATCH (n) DETACH DELETE n"))
const drift = Effect.flatMap(GraphDatabase, (db) => Effect.map(recountRuns(db, false), (r) => r.drifted))
const byId = (id: string) => ok("relay_find_procedure", { procedure_id: id, limit: 10 })

/** A procedure's fact and a run of it as a file writes them. */
const procedureLine = (id: string) => ({
  kind: "fact",
  id,
  created_at: "2026-06-01T00:00:00.000Z",
  written_by: "ann",
  session_id: "s",
  parent_id: null,
  content: "rotate the keys",
  fact_kind: "procedure"
})
const runLine = (procedureId: string) => ({
  kind: "run",
  id: randomUUID(),
  created_at: "2026-06-01T00:00:01.000Z",
  procedure_id: procedureId,
  outcome: "failure",
  failed_step: 1,
  note: "the old key was in use",
  ran_by: "bob",
  task_id: null
})

const lesson = "Check deploy history within 30 minutes before restarting cache"

/** A procedure, its failure and the v2 it made, a success of v2 and a task's failed run of v2. */
const memory = Effect.gen(function*() {
  yield* wipe
  yield* onCopy(wipe)
  yield* TestClock.setTime(Date.parse("2026-06-01T00:00:00.000Z"))
  const cache = yield* ok("relay_save_fact", { content: "the cache is Redis", written_by: "ann", session_id: "s" })
  const v1 = yield* ok("relay_save_fact", {
    content: "restart the redis cache during a spike",
    steps: ["drain traffic", `restart redis ${"x".repeat(480)}`, "warm up"],
    preconditions: ["page the on-call"],
    parent_fact_id: cache.fact.id,
    written_by: "ann",
    session_id: "s"
  })
  yield* TestClock.adjust(10)
  yield* ok("relay_record_run", { procedure_id: v1.fact.id, outcome: "success", ran_by: "bob" })
  yield* TestClock.adjust(10)
  const failed = yield* ok("relay_record_run", {
    procedure_id: v1.fact.id,
    outcome: "failure",
    failed_step: 2,
    note: "an unannounced deploy caused the spike; \"sessions\" dropped",
    lesson,
    ran_by: "bob"
  })
  const v2 = failed.revision!
  yield* TestClock.adjust(10)
  yield* ok("relay_record_run", { procedure_id: v2.fact.id, outcome: "success", ran_by: "cyd" })
  yield* TestClock.adjust(10)
  const task = yield* ok("relay_post_task", { title: "restart", written_by: "ann", procedure_id: v2.fact.id })
  const claim = yield* ok("relay_claim_task", { claimed_by: "cyd", task_id: task.task.id })
  yield* ok("relay_finish_task", {
    task_id: task.task.id,
    claimed_by: "cyd",
    fencing_token: claim.fencing_token,
    outcome: "failed",
    note: "the replica lagged"
  })
  return { v1: v1.fact.id, v2: v2.fact.id }
})

layer(Layer.merge(stack(), CopyLive), { timeout: 60_000 })("procedures in export and import", (it) => {
  it.effect("steps, a revision with its lesson and runs round-trip byte-identical; a merge rerun counts nothing twice", () =>
    Effect.gen(function*() {
      const { v1, v2 } = yield* memory
      const text = yield* exportText
      const lines = text.trimEnd().split("\n")
      expect(lines[0]).toBe(`{"format":"${exportFormat}","version":2}`)
      expect(lines.filter((l) => l.includes(`"kind":"run"`))).toHaveLength(4)
      const v2Line = JSON.parse(lines.find((l) => l.includes(`"id":"${v2}"`))!)
      expect(v2Line.procedure).toEqual({
        version: 2,
        lineage: [v1],
        preconditions: [lesson, "page the on-call"],
        steps: ["drain traffic", `restart redis ${"x".repeat(480)}`, "warm up"]
      })
      const counts = yield* onCopy(importText(text, { merge: false }))
      expect([counts.facts, counts.decisions, counts.tasks, counts.task_notes, counts.runs]).toEqual([3, 1, 1, 1, 4])
      expect(yield* onCopy(exportText)).toBe(text)
      // What a reader gets: each version with its checks, steps, counts and runs (newest first) as here.
      for (const id of [v1, v2]) expect(yield* onCopy(byId(id))).toEqual(yield* byId(id))
      const copied = yield* onCopy(byId(v2))
      expect(copied.procedures[0]!.runs).toEqual({ success: 1, failure: 1, rate: 0.5 })
      expect(copied.procedures[0]!.earlier).toEqual([{
        id: v1,
        version: 1,
        runs: { success: 1, failure: 1, rate: 0.5 }
      }])
      expect(copied.runs?.map((r) => [r.outcome, r.ran_by, r.task_id !== null])).toEqual([
        ["failure", "cyd", true],
        ["success", "cyd", false]
      ])
      expect((yield* onCopy(byId(v1))).runs?.map((r) => [r.outcome, r.failed_step])).toEqual([
        ["failure", 2],
        ["success", null]
      ])
      expect(yield* onCopy(drift)).toEqual([])
      // The same file again with --merge: every record is there, no run is added or counted twice.
      const again = yield* onCopy(importText(text, { merge: true }))
      expect([again.facts, again.runs, again.skipped]).toEqual([0, 0, lines.length - 1])
      expect(yield* onCopy(drift)).toEqual([])
      expect(yield* onCopy(exportText)).toBe(text)
    }))

  it.effect("a batch of runs that fails adds none; the rerun with --merge adds each once", () =>
    Effect.gen(function*() {
      const { v2 } = yield* memory
      const text = yield* exportText
      const db = yield* onCopy(GraphDatabase)
      const stopped = yield* Effect.flip(onCopy(withDatabase(
        importText(text, { merge: false }),
        failingOnce(db, (q) => q.startsWith("UNWIND $procs AS pr"))
      )))
      expect(stopped.message).toMatch(/^stopped at lines \d+-\d+ \(a batch of 4 runs\)/)
      expect((yield* onCopy(byId(v2))).procedures[0]!.runs).toEqual({ success: 0, failure: 0, rate: 0.5 })
      expect((yield* onCopy(byId(v2))).runs).toEqual([])
      expect(yield* onCopy(drift)).toEqual([])
      const resumed = yield* onCopy(importText(text, { merge: true }))
      expect(resumed.runs).toBe(4)
      expect(yield* onCopy(drift)).toEqual([])
      expect(yield* onCopy(exportText)).toBe(text)
    }))

  it.effect("a file of format 1 imports: a procedure without its parts is a first version with no runs", () =>
    Effect.gen(function*() {
      yield* onCopy(wipe)
      const id = randomUUID()
      const fact = procedureLine(id)
      const v1Header = JSON.stringify({ format: exportFormat, version: 1 })
      const counts = yield* onCopy(importText(`${v1Header}\n${JSON.stringify(fact)}\n`, { merge: false }))
      expect(counts.facts).toBe(1)
      const read = (yield* onCopy(byId(id))).procedures[0]!
      expect([read.version, read.steps, read.runs]).toEqual([1, [], { success: 0, failure: 0, rate: 0.5 }])
      expect(yield* onCopy(drift)).toEqual([])
      // Exported again it is format 2, the procedure's (empty) parts written out.
      expect((yield* onCopy(exportText)).split("\n")[1]).toBe(
        JSON.stringify({ ...fact, procedure: { version: 1, lineage: [], preconditions: [], steps: [] } })
      )
      const run = runLine(id)
      const refused = yield* Effect.flip(onCopy(importText(`${v1Header}\n${JSON.stringify(run)}\n`, { merge: true })))
      expect(refused.message).toBe("line 2: kind: run records come with format version 2 (the header says 1)")
    }))

  it.effect("steps, checks and notes are scanned and bounded as the tools do, larger steps only by import", () =>
    Effect.gen(function*() {
      yield* onCopy(wipe)
      const id = randomUUID()
      const fileOf = (steps: ReadonlyArray<string>, run: Record<string, unknown> = {}) =>
        [
          headerLine,
          JSON.stringify({
            ...procedureLine(id),
            procedure: { version: 1, lineage: [], preconditions: ["page the on-call"], steps }
          }),
          JSON.stringify({ ...runLine(id), ...run })
        ].join("\n")
      const refusal = (text: string) =>
        Effect.map(Effect.flip(onCopy(importText(text, { merge: false }))), (e) => e.message)
      expect(yield* refusal(fileOf(["revoke", "password=hunter2hunter2"]))).toMatch(
        /^line 2: procedure\.steps\.1 looks like it contains a credential/
      )
      expect(yield* refusal(fileOf(["revoke"], { note: "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789" })))
        .toMatch(/^line 3: note looks like it contains a credential/)
      expect(yield* refusal(fileOf(["a".repeat(2001)]))).toMatch(
        /^line 2: procedure\.steps\.0: must be 1-2000 characters/
      )
      expect(yield* refusal(fileOf(["revoke"], { outcome: "success" }))).toBe(
        "line 3: failed_step: only a failure has a failed step"
      )
      expect(yield* refusal(fileOf(["revoke"], { procedure_id: randomUUID() }))).toBe(
        "line 3: procedure_id: no procedure with that id in the file or in the graph"
      )
      // Refused files wrote nothing; a step of 2,000 characters (the tools take 500) comes in whole.
      expect(yield* onCopy(exportText)).toBe(`${headerLine}\n`)
      const counts = yield* onCopy(importText(fileOf(["a".repeat(2000)]), { merge: false }))
      expect([counts.facts, counts.runs]).toEqual([1, 1])
      expect((yield* onCopy(byId(id))).procedures[0]!.steps).toEqual(["a".repeat(2000)])
    }))
})
