import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { failed, ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * Procedures through the MCP edge's own call path (decode, policies, handler) on a real FalkorDB
 * (issue 44): a procedure saved with its steps, a failed run that revises it into v2 whose lesson
 * is its first check, the ranking of v2 (0 runs) over another procedure (1 of 3) with v1 (0 of 1)
 * shown as v2's earlier version, warnings first in search and listed in the briefing with failed
 * runs, a task that follows a procedure recording the run on finish, and bad input refused with
 * nothing written.
 */
const save = (content: string, steps: ReadonlyArray<string>, extra: Record<string, unknown> = {}) =>
  ok("relay_save_fact", { content, steps, written_by: "ann", session_id: "s", ...extra })

layer(relayTestLayer("procedures"))("procedures", (it) => {
  it.effect("save, fail, revise, rank: v2 first with its lesson first and every count shown", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-06-01T00:00:00Z"))
      const cache = yield* ok("relay_save_fact", { content: "the cache is Redis", written_by: "ann", session_id: "s" })
      const v1 = yield* save("restart the redis cache during a spike", ["drain traffic", "restart redis", "warm up"], {
        parent_fact_id: cache.fact.id,
        preconditions: ["page the on-call"]
      })
      expect(v1.procedure?.version).toBe(1)
      expect(v1.procedure?.steps).toEqual(["drain traffic", "restart redis", "warm up"])
      expect(v1.procedure?.runs).toEqual({ success: 0, failure: 0, rate: 0.5 })
      yield* TestClock.adjust(10)
      const other = yield* save("restart the redis cache by failover", ["promote the replica", "repoint clients"])
      const id = other.fact.id
      for (const outcome of ["success", "failure", "failure"] as const) {
        yield* ok("relay_record_run", { procedure_id: id, outcome, ran_by: "bob" })
      }
      yield* TestClock.adjust(10)
      // A failure that revises in the same call: v1 keeps its run, v2 starts at none.
      const run = yield* ok("relay_record_run", {
        procedure_id: v1.fact.id,
        outcome: "failure",
        failed_step: 2,
        note: "an unannounced deploy caused the spike; the restart dropped sessions",
        lesson: "Check deploy history within 30 minutes before restarting cache",
        ran_by: "bob",
        request_id: "run-1"
      })
      expect(run.runs).toEqual({ success: 0, failure: 1, rate: 0.333 })
      const v2 = run.revision!
      expect(v2.version).toBe(2)
      expect(v2.preconditions).toEqual([
        "Check deploy history within 30 minutes before restarting cache",
        "page the on-call"
      ])
      expect(v2.steps).toEqual(v1.procedure?.steps)
      expect(v2.runs.success + v2.runs.failure).toBe(0)
      expect(v2.earlier).toEqual([{ id: v1.fact.id, version: 1, runs: { success: 0, failure: 1, rate: 0.333 } }])
      // The retry of the same call records nothing more and finds the same v2.
      const retry = yield* ok("relay_record_run", {
        procedure_id: v1.fact.id,
        outcome: "failure",
        failed_step: 2,
        note: "an unannounced deploy caused the spike; the restart dropped sessions",
        lesson: "Check deploy history within 30 minutes before restarting cache",
        ran_by: "bob",
        request_id: "run-1"
      })
      expect([retry.already_recorded, retry.runs.failure, retry.revision?.fact.id]).toEqual([true, 1, v2.fact.id])

      const found = yield* ok("relay_find_procedure", { goal: "restart redis cache" })
      expect(found.procedures.map((p) => [p.fact.id, p.runs.success, p.runs.failure])).toEqual([
        [v2.fact.id, 0, 0],
        [id, 1, 2]
      ])
      expect(found.procedures[0]!.earlier[0]!.runs).toEqual({ success: 0, failure: 1, rate: 0.333 })
      // v1 is superseded, and what built on it: the detail below it goes stale as for any fact.
      const one = yield* ok("relay_find_procedure", { procedure_id: v1.fact.id })
      expect(one.procedures[0]!.fact.status).toBe("superseded")
      expect(one.procedures[0]!.revised_by).toBe(v2.fact.id)
      expect(one.runs?.map((r) => [r.outcome, r.failed_step, r.note?.slice(0, 13)])).toEqual([
        ["failure", 2, "an unannounce"]
      ])
    }))

  it.effect("warnings first in search; a task following a procedure records its run on finish", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-06-02T00:00:00Z"))
      for (let i = 0; i < 12; i++) {
        yield* ok("relay_save_fact", {
          content: `deploy note ${i}: the deploy pipeline runs`,
          written_by: "ann",
          session_id: "s"
        })
      }
      const warning = yield* ok("relay_save_fact", {
        content: "do not deploy on friday evenings: the pipeline has no on-call",
        kind: "warning",
        written_by: "ann",
        session_id: "s"
      })
      const hits = yield* ok("relay_search", { query: "deploy pipeline", limit: 3 })
      expect(hits.hits[0]?.fact.id).toBe(warning.fact.id)
      expect(hits.hits[0]?.kind).toBe("warning")
      expect(hits.hits.filter((h) => h.fact.id === warning.fact.id)).toHaveLength(1)

      const p = yield* save("rotate the deploy keys", ["revoke the old key", "issue the new key"])
      const task = yield* ok("relay_post_task", { title: "rotate keys", written_by: "ann", procedure_id: p.fact.id })
      const claim = yield* ok("relay_claim_task", { claimed_by: "cyd", task_id: task.task.id })
      const done = yield* ok("relay_finish_task", {
        task_id: task.task.id,
        claimed_by: "cyd",
        fencing_token: claim.fencing_token,
        outcome: "failed",
        note: "the old key was still in use"
      })
      expect(done.procedure_run).toEqual({ procedure_id: p.fact.id, outcome: "failure", success: 0, failure: 1 })
      const again = yield* ok("relay_finish_task", {
        task_id: task.task.id,
        claimed_by: "cyd",
        fencing_token: claim.fencing_token,
        outcome: "failed",
        note: "the old key was still in use"
      })
      expect(again.already_finished).toBe(true)
      const record = yield* ok("relay_find_procedure", { procedure_id: p.fact.id })
      expect(record.procedures[0]!.runs).toEqual({ success: 0, failure: 1, rate: 0.333 })
      expect(record.runs?.map((r) => [r.task_id, r.ran_by, r.note])).toEqual([
        [task.task.id, "cyd", "the old key was still in use"]
      ])
      // The briefing lists the new warning and the failed run, with its note, for a reader who did neither.
      const briefing = yield* ok("relay_get_briefing", { my_name: "dee" })
      expect(briefing.procedures?.warnings.map((f) => f.id)).toEqual([warning.fact.id])
      expect(briefing.procedures?.failed_runs.filter((r) => r.ran_by === "cyd").map((r) => [r.procedure_id, r.note]))
        .toEqual([
          [p.fact.id, "the old key was still in use"]
        ])
      // Not the writer's own, as for facts.
      expect(
        (yield* ok("relay_get_briefing", { my_name: "ann", since: "2026-06-01T00:00:00Z" })).procedures?.warnings ?? []
      )
        .toEqual([])
    }))

  it.effect("a second lesson on a version revised already revises its newest version: v3, never two v2s", () =>
    Effect.gen(function*() {
      const v1 = yield* save("rotate the tls certificate", ["issue", "deploy"], { preconditions: ["page the on-call"] })
      yield* TestClock.adjust(10)
      const first = yield* ok("relay_record_run", {
        procedure_id: v1.fact.id,
        outcome: "failure",
        lesson: "check the expiry first",
        ran_by: "bob"
      })
      const v2 = first.revision!
      yield* TestClock.adjust(10)
      // Another agent was running v1 meanwhile and failed too: its lesson lands on v2, making v3.
      const late = {
        procedure_id: v1.fact.id,
        outcome: "failure",
        failed_step: 2,
        lesson: "drain the load balancer first",
        ran_by: "cyd",
        request_id: "late-1"
      }
      const second = yield* ok("relay_record_run", late)
      const v3 = second.revision!
      expect([v3.version, v3.preconditions]).toEqual([3, [
        "drain the load balancer first",
        "check the expiry first",
        "page the on-call"
      ]])
      expect(v3.earlier.map((e) => [e.id, e.version])).toEqual([[v2.fact.id, 2], [v1.fact.id, 1]])
      // The run stays v1's (that is what cyd ran); v1 and v2 are each revised by one version.
      expect(second.runs).toEqual({ success: 0, failure: 2, rate: 0.25 })
      const read = (id: string) => Effect.map(ok("relay_find_procedure", { procedure_id: id }), (r) => r.procedures[0]!)
      expect([(yield* read(v1.fact.id)).revised_by, (yield* read(v2.fact.id)).revised_by]).toEqual([
        v2.fact.id,
        v3.fact.id
      ])
      // The retry of the late call finds the same v3.
      const retry = yield* ok("relay_record_run", late)
      expect([retry.already_recorded, retry.revision?.fact.id, retry.revision?.version]).toEqual([true, v3.fact.id, 3])
      const found = yield* ok("relay_find_procedure", { goal: "rotate tls certificate" })
      expect(found.procedures.filter((p) => p.fact.status === "active").map((p) => p.fact.id)).toEqual([v3.fact.id])
    }))

  it.effect("bad input: a typed error naming the field, nothing written", () =>
    Effect.gen(function*() {
      const fact = yield* ok("relay_save_fact", { content: "plain fact", written_by: "ann", session_id: "s" })
      const p = yield* save("flush the dns cache", ["run resolvectl flush-caches"])
      const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string, string]> = [
        ["relay_save_fact", { content: "x", written_by: "a", session_id: "s", steps: [] }, "invalid_input", "steps"],
        [
          "relay_save_fact",
          {
            content: "x",
            written_by: "a",
            session_id: "s",
            steps: Array.from({ length: 51 }, () => "a")
          },
          "invalid_input",
          "steps"
        ],
        [
          "relay_save_fact",
          { content: "x", written_by: "a", session_id: "s", steps: ["a".repeat(501)] },
          "invalid_input",
          "steps"
        ],
        [
          "relay_save_fact",
          {
            content: "x",
            written_by: "a",
            session_id: "s",
            steps: ["ok", "use key AKIAIXPRXOUYC3DMUK5K for the bucket"]
          },
          "secret_detected",
          "steps.1"
        ],
        [
          "relay_save_fact",
          { content: "x", written_by: "a", session_id: "s", preconditions: ["a"] },
          "invalid_input",
          "preconditions"
        ],
        [
          "relay_save_fact",
          { content: "x", written_by: "a", session_id: "s", steps: ["a"], kind: "detail" },
          "invalid_input",
          "kind"
        ],
        [
          "relay_record_run",
          { procedure_id: fact.fact.id, outcome: "success", ran_by: "b" },
          "invalid_input",
          "procedure_id"
        ],
        ["relay_record_run", { procedure_id: p.fact.id, outcome: "fine", ran_by: "b" }, "invalid_input", "outcome"],
        [
          "relay_record_run",
          { procedure_id: p.fact.id, outcome: "success", failed_step: 1, ran_by: "b" },
          "invalid_input",
          "failed_step"
        ],
        [
          "relay_record_run",
          {
            procedure_id: p.fact.id,
            outcome: "failure",
            note: "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 expired",
            ran_by: "b"
          },
          "secret_detected",
          "note"
        ],
        [
          "relay_record_run",
          { procedure_id: "00000000-0000-4000-8000-000000000000", outcome: "success", ran_by: "b" },
          "fact_not_found",
          "procedure_id"
        ],
        ["relay_find_procedure", {}, "invalid_input", "goal"],
        ["relay_find_procedure", { goal: "dns", cursor: "bm90IGEgY3Vyc29y" }, "invalid_input", "cursor"],
        [
          "relay_post_task",
          { title: "t", written_by: "a", procedure_id: fact.fact.id },
          "invalid_input",
          "procedure_id"
        ]
      ]
      for (const [tool, args, code, field] of cases) {
        const e = yield* failed(tool, args)
        expect([tool, e.code], JSON.stringify(args).slice(0, 80)).toEqual([tool, code])
        expect(e.message, e.message).toContain(field)
      }
      const record = yield* ok("relay_find_procedure", { procedure_id: p.fact.id })
      expect(record.procedures[0]!.runs).toEqual({ success: 0, failure: 0, rate: 0.5 })
      expect(record.runs).toEqual([])
      expect((yield* ok("relay_get_current_state", { written_by: "a" })).facts).toEqual([])
    }))
})
