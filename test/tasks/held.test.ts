import { expect, it, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { TaskStore } from "../../src/services/TaskStore.js"
import { ownGraph, raw, stackOn } from "../support/ownGraph.js"
import { ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * Held means claimed on a live lease: a task that failed, was claimed again and finished is never
 * listed as held, in the briefing's "Tasks others hold" or in the board, before any old lease ends.
 */
layer(relayTestLayer("task_held"))("held tasks", (it) => {
  it.effect("a task failed, claimed again and done is no longer held", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-06-01T00:00:00Z"))
      const posted = yield* ok("relay_post_task", { title: "fix the flaky login test", written_by: "ann" })
      const id = posted.task.id
      const first = yield* ok("relay_claim_task", { claimed_by: "bob", task_id: id, lease_seconds: 600 })
      yield* ok("relay_finish_task", {
        task_id: id,
        claimed_by: "bob",
        fencing_token: first.fencing_token!,
        outcome: "failed",
        note: "a race in the session store"
      })
      yield* TestClock.adjust(1_000)
      const second = yield* ok("relay_claim_task", { claimed_by: "cyd", task_id: id, lease_seconds: 600 })
      yield* TestClock.adjust(1_000)
      const done = yield* ok("relay_finish_task", {
        task_id: id,
        claimed_by: "cyd",
        fencing_token: second.fencing_token!,
        outcome: "done"
      })
      expect([done.task.status, done.task.lease_expires_at]).toEqual(["done", null])
      const brief = yield* ok("relay_get_briefing", { my_name: "dan" })
      expect(brief.tasks.claimed_by_others.map((t) => t.id)).toEqual([])
      const board = yield* ok("relay_list_tasks", {})
      expect(board.totals).toMatchObject({ claimed: 0, done: 1 })
      expect(board.tasks.map((t) => t.status)).toEqual(["done"])
      expect((yield* ok("relay_list_tasks", { status: "claimed" })).tasks).toEqual([])
      // Past both leases the queue has nothing to give: a done task is never taken again.
      yield* TestClock.adjust(700_000)
      expect((yield* ok("relay_claim_task", { claimed_by: "erin" })).task).toBeNull()
      expect((yield* ok("relay_get_briefing", { my_name: "dan" })).tasks.claimed_by_others).toEqual([])
    }))
})

// FalkorDB 4.16 dropped the wrong properties when the finish cleared the lease inside its FOREACH:
// the lease stayed and `finished_by` went.
it.live("a done after a failure and a new claim clears the stored lease and keeps who finished", () =>
  Effect.scoped(Effect.gen(function*() {
    const graph = yield* ownGraph("task_held_stored")
    yield* Effect.provide(
      Effect.gen(function*() {
        const tasks = yield* TaskStore
        const id = "0badcafe-1111-4000-8000-000000000001"
        const claim = (by: string) =>
          Effect.map(
            tasks.claim({ claimedBy: by, taskId: id, fence: null, leaseMillis: 600_000, claimId: by }),
            (c) => c!.fence
          )
        yield* tasks.post({
          id,
          title: "t",
          detail: null,
          writtenBy: "ann",
          about: [],
          needsApproval: false,
          maxAttempts: 3
        })
        yield* tasks.finish({ taskId: id, claimedBy: "bob", fence: yield* claim("bob"), outcome: "failed", note: "x" })
        yield* tasks.finish({ taskId: id, claimedBy: "cyd", fence: yield* claim("cyd"), outcome: "done", note: null })
      }),
      stackOn(graph)
    )
    const stored = yield* Effect.promise(() =>
      raw(graph, "MATCH (t:Task)-[s:STATE]->(t) RETURN [s.status, s.lease_until, s.finished_by, s.last_note]")
    )
    expect(stored.data?.map((r) => Object.values(r as Record<string, unknown>)[0])).toEqual([[
      "done",
      null,
      "cyd",
      null
    ]])
  })))
