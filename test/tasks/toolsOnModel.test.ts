import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { runTaskCommand } from "../../src/cli/taskCommand.js"
import { encodeCursor } from "../../src/domain/paging.js"
import { modelTestLayer } from "../support/modelLayer.js"
import { failed, ok } from "../support/runTool.js"

/**
 * The four task tools through the MCP edge's own call path (decode, policies, handler, rendering)
 * on the TaskStore of the pure task model (TaskStoreTest, held to the live store by
 * test/rules/taskTestLayer.test.ts), with the TaskStore on the TestClock: ids a request_id makes
 * stable, claim retries, refusals and their messages, notes that outlive a failure, a queue that
 * serves failures behind the tasks never tried, a person's approval through the CLI's code path and
 * pages of the board. What needs facts or the briefing stays on FalkorDB (tools.test.ts).
 */
layer(modelTestLayer)("task tools on the model", (it) => {
  it.effect("post, claim, heartbeat, fail with a note, approve and page", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-06-01T00:00:00Z"))
      const first = yield* ok("relay_post_task", {
        title: "fix the flaky login test",
        written_by: "ann",
        request_id: "fix-login"
      })
      // The same request_id answers the same task; with other text it is refused, nothing written.
      const again = yield* ok("relay_post_task", {
        title: "fix the flaky login test",
        written_by: "ann",
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
      // The cursor is the [created_at, id] clients already hold; another tool's or a tampered one is refused.
      expect(page1.next_cursor).toBe(encodeCursor([Date.parse(second.task.created_at), second.task.id]))
      for (const key of [[Date.parse(second.task.created_at)], [1.5, second.task.id], [2, 4, 1, 0.5, 9]]) {
        expect(yield* failed("relay_list_tasks", { cursor: encodeCursor(key) })).toEqual({
          code: "invalid_input",
          message: "cursor: must be a next_cursor returned by this tool"
        })
      }
    }))
})
