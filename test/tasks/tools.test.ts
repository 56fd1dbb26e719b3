import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { failed, ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * The task tools through the MCP edge's own call path (decode, policies, handler), on a real
 * FalkorDB with the TestClock, for what the task model leaves out: tasks about facts (named by a
 * prefix, a missing one refused), the briefing's tasks section, the tasks of a thread, and a queue
 * head that crosses places claimed by id. Claims, finishes, approvals and pages on their own run
 * on the model (toolsOnModel.test.ts).
 */
layer(relayTestLayer("task_tools"))("task tools", (it) => {
  it.effect("post about facts, fail with a note, brief", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-06-01T00:00:00Z"))
      const fact = yield* ok("relay_save_fact", { content: "login test is flaky", written_by: "ann", session_id: "s" })
      const first = yield* ok("relay_post_task", {
        title: "fix the flaky login test",
        written_by: "ann",
        about: [fact.fact.id.slice(0, 8)],
        request_id: "fix-login"
      })
      expect(first.task.about).toEqual([fact.fact.id])
      // The same request_id answers the same task; with other text it is refused, nothing written.
      const again = yield* ok("relay_post_task", {
        title: "fix the flaky login test",
        written_by: "ann",
        about: [fact.fact.id],
        request_id: "fix-login"
      })
      expect([again.task.id, again.already_posted]).toEqual([first.task.id, true])
      expect((yield* failed("relay_post_task", { title: "other", written_by: "ann", request_id: "fix-login" })).code)
        .toBe("invalid_input")
      expect(
        (yield* failed("relay_post_task", {
          title: "x",
          written_by: "ann",
          about: ["00000000-0000-4000-8000-000000000000"]
        })).code
      ).toBe("fact_not_found")
      yield* TestClock.adjust(10)
      const second = yield* ok("relay_post_task", { title: "bump the driver", written_by: "ann" })

      // bob fails the oldest with a note; cyd then holds both; a destructive task waits for a person.
      const claim = yield* ok("relay_claim_task", { claimed_by: "bob", lease_seconds: 60 })
      yield* ok("relay_finish_task", {
        task_id: first.task.id,
        claimed_by: "bob",
        fencing_token: claim.fencing_token!,
        outcome: "failed",
        note: "the retry loop hides a race in the session store"
      })
      yield* ok("relay_claim_task", { claimed_by: "cyd" })
      yield* ok("relay_claim_task", { claimed_by: "cyd" })
      const drop = yield* ok("relay_post_task", {
        title: "drop the sessions table",
        written_by: "ann",
        needs_approval: true
      })
      const brief = yield* ok("relay_get_briefing", { my_name: "dan" })
      expect(brief.tasks.new_tasks.map((t) => t.id)).toContain(drop.task.id)
      expect(brief.tasks.claimed_by_others.map((t) => t.id).sort()).toEqual([first.task.id, second.task.id].sort())
      expect(brief.tasks.failures.map((f) => [f.task.id, f.failed_by, f.note])).toEqual([
        [first.task.id, "bob", "the retry loop hides a race in the session store"]
      ])
      expect(brief.tasks.awaiting_approval.map((t) => t.id)).toEqual([drop.task.id])
    }))

  it.effect("the queue's head crosses more than a window of places claimed by id", () =>
    Effect.gen(function*() {
      const ids: Array<string> = []
      for (let i = 0; i < 140; i++) {
        ids.push((yield* ok("relay_post_task", { title: `chore ${i}`, written_by: "ann" })).task.id)
      }
      for (const id of ids.slice(0, 130)) yield* ok("relay_claim_task", { claimed_by: "bob", task_id: id })
      const got = yield* ok("relay_claim_task", { claimed_by: "cyd" })
      expect(got.task?.id).toBe(ids[130])
    }), 60_000)

  it.effect("thread: only the tasks about a fact of that thread, by any of its facts or a prefix", () =>
    Effect.gen(function*() {
      const save = (content: string, parent?: string) =>
        ok("relay_save_fact", {
          content,
          written_by: "ann",
          session_id: "s",
          ...(parent === undefined ? {} : { parent_fact_id: parent })
        })
      const db = (yield* save("the database is postgres")).fact.id
      const pool = (yield* save("pool of 20 connections", db)).fact.id
      const deep = (yield* save("raise it to 40 under load", pool)).fact.id
      const ui = (yield* save("the web app is react")).fact.id
      const onPool = yield* ok("relay_post_task", { title: "tune the pool", written_by: "ann", about: [pool] })
      const onBoth = yield* ok("relay_post_task", { title: "load test", written_by: "ann", about: [ui, deep] })
      yield* ok("relay_post_task", { title: "restyle", written_by: "ann", about: [ui] })
      yield* ok("relay_post_task", { title: "about nothing", written_by: "ann" })
      // Named by its root, its leaf or a prefix: the same two tasks, each once, with totals of the thread.
      for (const thread of [db, deep, deep.slice(0, 8)]) {
        const listed = yield* ok("relay_list_tasks", { thread })
        expect(listed.tasks.map((t) => t.id).sort()).toEqual([onBoth.task.id, onPool.task.id].sort())
        expect(listed.totals).toMatchObject({ open: 2 })
      }
      expect((yield* ok("relay_list_tasks", { thread: ui })).tasks).toHaveLength(2)
      const none = yield* failed("relay_list_tasks", { thread: "00000000-0000-4000-8000-000000000000" })
      expect(none.code).toBe("fact_not_found")
    }))
})
