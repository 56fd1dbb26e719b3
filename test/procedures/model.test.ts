import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, FastCheck as fc, Schema, TestClock } from "effect"
import * as M from "../../src/domain/model/procedures.js"
import { SearchQuery } from "../../src/domain/search.js"
import { FactStore } from "../../src/services/FactStore.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ok } from "../support/runTool.js"
import { onFreshTestClock, relayTestLayer } from "../support/testLayer.js"

/**
 * Procedures' rules (src/domain/model/procedures.ts) as properties, then the tools on a real
 * FalkorDB held to them: random saves, runs (retried with the same request_id), and failures that
 * revise the current version; after each scenario every version's counts, checks, steps and
 * lineage, and the ranking of a goal that matches them all, are what the model says.
 */
const opArb = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("save" as const), steps: fc.integer({ min: 1, max: 3 }), pre: fc.nat(2) })
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("run" as const),
      p: fc.nat(),
      outcome: fc.constantFrom<M.RunOutcome>("success", "failure"),
      retry: fc.boolean()
    })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("revise" as const), p: fc.nat() }) }
)
type Op = typeof opArb extends fc.Arbitrary<infer O> ? O : never

/** The model after the ops, and the names the ops use (procedure ids come from the store, so the model is handed them). */
const applyModel = (ops: ReadonlyArray<Op>, ids: ReadonlyArray<string>) => {
  let m = M.emptyProcedures
  let runs = 0
  let next = 0
  for (const op of ops) {
    const current = M.current(m)
    if (op.kind === "save") {
      const i = next++
      m = M.saveProcedure(m, {
        id: ids[i]!,
        goal: `alpha runbook ${i}`,
        steps: stepsOf(i, op.steps),
        preconditions: stepsOf(i, op.pre, "check")
      })
    } else if (current.length > 0) {
      const p = current[op.p % current.length]!
      if (op.kind === "run") {
        const prior = op.retry ? [...m.runs].reverse().find((r) => r.note === null) : undefined
        m = M.recordRun(m, prior ?? { id: `r${runs++}`, procedure: p.id, outcome: op.outcome, step: null, note: null })
      } else {
        const id = `r${runs++}`
        m = M.recordRun(m, { id, procedure: p.id, outcome: "failure", step: 1, note: "broke" })
        m = M.revise(m, { of: p.id, id: ids[next++]!, lesson: `lesson ${id}` })
      }
    }
  }
  return m
}

const stepsOf = (i: number, n: number, word = "step") => Array.from({ length: n }, (_, k) => `${word} ${k} of ${i}`)

describe("the rules", () => {
  const counted = fc.array(
    fc.record({ success: fc.nat(50), failure: fc.nat(50) }),
    { maxLength: 12 }
  )
  it.prop("rank: a permutation, best Laplace rate first, ties in match order, nothing dropped", [counted], ([xs]) => {
    const tagged = xs.map((x, i) => ({ ...x, i }))
    const ranked = M.rank(tagged)
    expect([...ranked].map((x) => x.i).sort((a, b) => a - b)).toEqual(tagged.map((x) => x.i))
    for (let k = 1; k < ranked.length; k++) {
      const [a, b] = [ranked[k - 1]!, ranked[k]!]
      expect(M.laplace(a.success, a.failure)).toBeGreaterThanOrEqual(M.laplace(b.success, b.failure))
      if (M.byRate(a, b) === 0) expect(a.i).toBeLessThan(b.i)
    }
  })

  it.prop("counts: kept on every run equal the runs counted; a retried run counts once; revision keeps the old runs", [
    fc.array(opArb, { maxLength: 40 })
  ], ([ops]) => {
    const ids = Array.from({ length: 80 }, (_, i) => `p${i}`)
    const m = applyModel(ops, ids)
    for (const p of m.procedures.values()) {
      expect({ success: p.success, failure: p.failure }).toEqual(M.recount(m.runs, p.id))
      if (p.previous !== null) {
        const old = m.procedures.get(p.previous)!
        expect(p.preconditions.slice(1)).toEqual(old.preconditions)
        expect(p.preconditions[0]).toMatch(/^lesson /)
        expect(p.version).toBe(old.version + 1)
        expect(M.lineage(m, p.id)[0]?.id).toBe(old.id)
      }
    }
    expect(new Set(m.runs.map((r) => r.id)).size).toBe(m.runs.length)
  })

  it("issue 44's example: v2 (0 runs) before another (1 of 3) before v1 (0 of 1)", () => {
    const ranked = M.rank([
      { id: "v1", success: 0, failure: 1 },
      { id: "other", success: 1, failure: 2 },
      { id: "v2", success: 0, failure: 0 }
    ])
    expect(ranked.map((r) => r.id)).toEqual(["v2", "other", "v1"])
  })
})

layer(relayTestLayer("procedure_model"))("the tools against the model", (it) => {
  const scenario = (ops: ReadonlyArray<Op>) =>
    Effect.gen(function*() {
      const db = yield* GraphDatabase
      yield* db.write("MATCH (n) DETACH DELETE n")
      yield* TestClock.setTime(Date.parse("2026-05-01T00:00:00.000Z"))
      let m = M.emptyProcedures
      const ids: Array<string> = []
      let runs = 0
      for (const op of ops) {
        yield* TestClock.adjust(5)
        const current = M.current(m)
        if (op.kind === "save") {
          const i = ids.length
          const saved = yield* ok("relay_save_fact", {
            content: `alpha runbook ${i}`,
            steps: stepsOf(i, op.steps),
            ...(op.pre === 0 ? {} : { preconditions: stepsOf(i, op.pre, "check") }),
            written_by: "ann",
            session_id: "s"
          })
          ids.push(saved.fact.id)
          m = M.saveProcedure(m, {
            id: saved.fact.id,
            goal: `alpha runbook ${i}`,
            steps: stepsOf(i, op.steps),
            preconditions: stepsOf(i, op.pre, "check")
          })
        } else if (current.length > 0) {
          const p = current[op.p % current.length]!
          if (op.kind === "run") {
            // A retry sends the last plain run again, as it was sent.
            const prior = op.retry ? [...m.runs].reverse().find((r) => r.note === null) : undefined
            const run = prior ?? { id: `r${runs++}`, procedure: p.id, outcome: op.outcome, step: null, note: null }
            const id = run.id
            yield* ok("relay_record_run", {
              procedure_id: run.procedure,
              outcome: run.outcome,
              ran_by: "bob",
              request_id: id
            })
            m = M.recordRun(m, run)
          } else {
            const id = `r${runs++}`
            const out = yield* ok("relay_record_run", {
              procedure_id: p.id,
              outcome: "failure",
              failed_step: 1,
              note: "broke",
              lesson: `lesson ${id}`,
              ran_by: "bob",
              request_id: id
            })
            m = M.recordRun(m, { id, procedure: p.id, outcome: "failure", step: 1, note: "broke" })
            m = M.revise(m, { of: p.id, id: out.revision!.fact.id, lesson: `lesson ${id}` })
            ids.push(out.revision!.fact.id)
          }
        }
      }
      for (const p of m.procedures.values()) {
        const got = (yield* ok("relay_find_procedure", { procedure_id: p.id })).procedures[0]!
        expect({ success: got.runs.success, failure: got.runs.failure }, p.id).toEqual({
          success: p.success,
          failure: p.failure
        })
        expect([got.version, got.preconditions, got.steps]).toEqual([p.version, p.preconditions, p.steps])
        expect(got.earlier.map((e) => e.id)).toEqual(M.lineage(m, p.id).map((x) => x.id))
        expect(got.fact.status).toBe(M.current(m).some((c) => c.id === p.id) ? "active" : "superseded")
      }
      // Every current version matches "alpha runbook": in the order the store's search ranks the matches, then by rate.
      const current = M.current(m)
      const hits = (yield* (yield* FactStore).search({
        query: yield* Schema.decode(SearchQuery)("alpha runbook"),
        kind: "procedure",
        statuses: ["active"],
        writtenBy: null,
        sessionId: null,
        since: null,
        until: null,
        take: 50,
        after: null
      })).map((r) => r.hit.fact.id)
      const matchOrder = [...current].sort((x, y) => hits.indexOf(x.id) - hits.indexOf(y.id))
      expect(matchOrder.every((p) => hits.includes(p.id))).toBe(true)
      const want = M.rank(matchOrder).slice(0, 10).map((p) => p.id)
      const found = yield* ok("relay_find_procedure", { goal: "alpha runbook", limit: 10 })
      expect(found.procedures.map((p) => p.fact.id)).toEqual(want)
    })

  it.effect.prop(
    "saves, runs, retries and revisions",
    [fc.array(opArb, { minLength: 3, maxLength: 14 })],
    ([ops]) => onFreshTestClock(scenario(ops)),
    { timeout: 120_000, fastCheck: { numRuns: 12 } }
  )
})
