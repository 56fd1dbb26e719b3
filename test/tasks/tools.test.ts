import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { runTaskCommand } from "../../src/cli/taskCommand.js"
import { failed, ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * The four task tools through the MCP edge's own call path (decode, policies, handler), on a real
 * FalkorDB with the TestClock: ids a request_id makes stable, notes that outlive a failure, a queue that
 * serves failures behind the tasks never tried, a person's approval through the CLI's code path, the
 * briefing's tasks section, pages of the board, and a queue head that crosses places claimed by id.
 */
layer(relayTestLayer("task_tools"))("task tools", (it) => {
  it.effect("post, claim, heartbeat, fail with a note, approve, brief and page", () =>
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
          title: "rotate ghp_abcdefghijklmnopqrstuvwxyz0123456789",
          written_by: "ann"
        }))
          .code
      ).toBe("secret_detected")
      expect(
        (yield* failed("relay_post_task", {
          title: "x",
          written_by: "ann",
          about: ["00000000-0000-4000-8000-000000000000"]
        })).code
      ).toBe("fact_not_found")
      yield* TestClock.adjust(10)
      const second = yield* ok("relay_post_task", { title: "bump the driver", written_by: "ann" })

      // bob takes the oldest; a second window of bob without the token does not hold it.
      const claim = yield* ok("relay_claim_task", { claimed_by: "bob", lease_seconds: 60, request_id: "c1" })
      expect(claim.task?.id).toBe(first.task.id)
      const retried = yield* ok("relay_claim_task", { claimed_by: "bob", lease_seconds: 60, request_id: "c1" })
      expect([retried.task?.id, retried.fencing_token]).toEqual([first.task.id, claim.fencing_token])
      const taken = yield* failed("relay_claim_task", { claimed_by: "bob", task_id: first.task.id })
      expect(taken.code).toBe("already_claimed")
      expect(taken.message).toContain("claimed by bob until 2026-06-01T00:01:00.010Z")
      yield* TestClock.adjust(50_000)
      const beat = yield* ok("relay_claim_task", {
        claimed_by: "bob",
        task_id: first.task.id,
        fencing_token: claim.fencing_token!,
        lease_seconds: 60
      })
      expect([beat.heartbeat, beat.fencing_token]).toEqual([true, claim.fencing_token])

      // A failure counts, keeps its note and goes behind the task never tried.
      const fail = yield* ok("relay_finish_task", {
        task_id: first.task.id,
        claimed_by: "bob",
        fencing_token: claim.fencing_token!,
        outcome: "failed",
        note: "the retry loop hides a race in the session store"
      })
      expect([fail.task.status, fail.task.attempts, fail.task.last_note?.note]).toEqual([
        "open",
        1,
        "the retry loop hides a race in the session store"
      ])
      const next = yield* ok("relay_claim_task", { claimed_by: "cyd" })
      expect(next.task?.id).toBe(second.task.id)
      const then = yield* ok("relay_claim_task", { claimed_by: "cyd" })
      expect(then.task?.id).toBe(first.task.id)
      expect(then.fencing_token).toBe(2)
      // bob's late finish with the old token loses, and writes nothing.
      expect(
        (yield* failed("relay_finish_task", {
          task_id: first.task.id,
          claimed_by: "bob",
          fencing_token: 1,
          outcome: "done"
        })).code
      ).toBe("lease_lost")

      // A destructive task waits for a person; the CLI's code path approves it.
      const drop = yield* ok("relay_post_task", {
        title: "drop the sessions table",
        written_by: "ann",
        needs_approval: true
      })
      expect((yield* failed("relay_claim_task", { claimed_by: "cyd", task_id: drop.task.id })).message).toContain(
        "approval"
      )
      const brief = yield* ok("relay_get_briefing", { my_name: "dan" })
      expect(brief.tasks.new_tasks.map((t) => t.id)).toContain(drop.task.id)
      expect(brief.tasks.claimed_by_others.map((t) => t.id).sort()).toEqual([first.task.id, second.task.id].sort())
      expect(brief.tasks.failures.map((f) => [f.task.id, f.failed_by, f.note])).toEqual([
        [first.task.id, "bob", "the retry loop hides a race in the session store"]
      ])
      expect(brief.tasks.awaiting_approval.map((t) => t.id)).toEqual([drop.task.id])
      const lines = yield* runTaskCommand({
        command: "approve",
        id: drop.task.id,
        by: "erin",
        graph: undefined,
        workspace: undefined
      })
      expect(lines[0]).toContain("approved by erin")
      expect((yield* ok("relay_claim_task", { claimed_by: "cyd" })).task?.id).toBe(drop.task.id)

      // The board pages newest first with totals over every page.
      const page1 = yield* ok("relay_list_tasks", { limit: 2 })
      expect(page1.totals).toMatchObject({ claimed: 3, open: 0 })
      const page2 = yield* ok("relay_list_tasks", { limit: 2, cursor: page1.next_cursor! })
      expect([...page1.tasks, ...page2.tasks].map((t) => t.id)).toEqual([drop.task.id, second.task.id, first.task.id])
      expect(page2.next_cursor).toBeNull()
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
