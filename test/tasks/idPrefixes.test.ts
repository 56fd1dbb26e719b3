import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TaskStore } from "../../src/services/TaskStore.js"
import { failed, ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/** Task ids take the prefixes fact ids take: the whole id or its first 8+ characters, one task only. */
layer(relayTestLayer("task_id_prefixes"))("task id prefixes", (it) => {
  it.effect("claim and finish by a prefix; an ambiguous one names the candidates; none is task_not_found", () =>
    Effect.gen(function*() {
      const tasks = yield* TaskStore
      const post = (id: string) =>
        tasks.post({ id, title: "t", detail: null, writtenBy: "ann", about: [], needsApproval: false, maxAttempts: 3 })
      const a = "0badcafe-1111-4000-8000-000000000001"
      const b = "0badcafe-2222-4000-8000-000000000002"
      yield* post(a)
      yield* post(b)
      const claim = yield* ok("relay_claim_task", { claimed_by: "bob", task_id: "0BADCAFE-1111" })
      expect(claim.task?.id).toBe(a)
      const done = yield* ok("relay_finish_task", {
        task_id: "0badcafe-11",
        claimed_by: "bob",
        fencing_token: claim.fencing_token!,
        outcome: "done"
      })
      expect([done.task.id, done.task.status]).toEqual([a, "done"])
      const both = yield* failed("relay_claim_task", { claimed_by: "bob", task_id: "0badcafe" })
      expect(both.code).toBe("invalid_input")
      expect(both.message).toContain("task_id: more than one task")
      expect(both.message).toContain(a)
      expect(both.message).toContain(b)
      const none = yield* failed("relay_claim_task", { claimed_by: "bob", task_id: "feedbeef" })
      expect([none.code, none.message]).toEqual(["task_not_found", "task_id: no task has an id starting with that"])
      const short = yield* failed("relay_claim_task", { claimed_by: "bob", task_id: "0badcaf" })
      expect(short.code).toBe("invalid_input")
      // The whole id still works, and a whole id no task has is task_not_found from the tool.
      expect((yield* ok("relay_claim_task", { claimed_by: "bob", task_id: b })).task?.id).toBe(b)
      expect(
        (yield* failed("relay_claim_task", { claimed_by: "bob", task_id: "feedbeef-0000-4000-8000-000000000000" })).code
      )
        .toBe("task_not_found")
    }))
})
