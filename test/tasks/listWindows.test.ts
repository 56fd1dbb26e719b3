import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * relay_list_tasks reads each page of the whole board from a window of the created_at index that
 * ends at the page's anchor (now, or the cursor's stamp) and widens sixteen times at a step
 * (layers/tasks/list.ts). On a board whose tasks lie minutes to months apart, every
 * page of every filter must still be the next tasks newest first, each once, with totals whole.
 */
layer(relayTestLayer("task_windows"))("relay_list_tasks over widening windows", (it) => {
  it.effect("pages newest first through gaps of minutes to months, with and without a status filter", () =>
    Effect.gen(function*() {
      const start = Date.parse("2026-01-01T00:00:00Z")
      yield* TestClock.setTime(start)
      // Gaps from a minute to 60 days: windows of 1 h, 16 h, 256 h... each meet a different share.
      const gaps = [60_000, 3_600_000 * 5, 86_400_000 * 2, 60_000, 86_400_000 * 60, 3_600_000, 120_000]
      const posted: Array<{ id: string; at: number }> = []
      for (let i = 0; i < 21; i++) {
        const task = yield* ok("relay_post_task", { title: `task ${i}`, written_by: "ann" })
        posted.push({ id: task.task.id, at: Date.parse(task.task.created_at) })
        yield* TestClock.adjust(gaps[i % gaps.length]!)
      }
      // Three of them claimed (one of those lease runs out below), one done.
      const claim = (i: number, lease: number) =>
        ok("relay_claim_task", { claimed_by: "bob", task_id: posted[i]!.id, lease_seconds: lease })
      const held = yield* claim(3, 3600)
      yield* claim(10, 3600)
      yield* claim(17, 60)
      yield* ok("relay_finish_task", {
        task_id: posted[3]!.id,
        claimed_by: "bob",
        fencing_token: held.fencing_token!,
        outcome: "done"
      })
      yield* TestClock.adjust(120_000)

      const newestFirst = [...posted].sort((a, b) => b.at - a.at || (b.id < a.id ? -1 : 1)).map((t) => t.id)
      const expected: Record<string, ReadonlyArray<string>> = {
        all: newestFirst,
        open: newestFirst.filter((id) => id !== posted[3]!.id && id !== posted[10]!.id),
        claimed: [posted[10]!.id],
        done: [posted[3]!.id]
      }
      for (const [status, want] of Object.entries(expected)) {
        for (const limit of [1, 3, 20]) {
          const seen: Array<string> = []
          let cursor: string | null = null
          for (let pages = 0; pages < 30; pages++) {
            const page: { tasks: ReadonlyArray<{ id: string }>; totals: unknown; next_cursor: string | null } =
              yield* ok(
                "relay_list_tasks",
                {
                  limit,
                  ...(status === "all" ? {} : { status }),
                  ...(cursor === null ? {} : { cursor })
                }
              )
            expect(page.totals).toEqual({ open: 19, claimed: 1, done: 1, failed: 0, awaiting_approval: 0, rejected: 0 })
            seen.push(...page.tasks.map((t) => t.id))
            cursor = page.next_cursor
            if (cursor === null) break
          }
          expect(seen, `${status}, limit ${limit}`).toEqual(want)
        }
      }

      // One agent's tasks (read from the holder index): the three bob claimed, the lapsed one open.
      const bobs = newestFirst.filter((id) => [3, 10, 17].some((i) => posted[i]!.id === id))
      for (const limit of [1, 3]) {
        const seen: Array<string> = []
        let cursor: string | null = null
        for (let pages = 0; pages < 10; pages++) {
          const page: { tasks: ReadonlyArray<{ id: string }>; totals: unknown; next_cursor: string | null } = yield* ok(
            "relay_list_tasks",
            { limit, claimed_by: "bob", ...(cursor === null ? {} : { cursor }) }
          )
          expect(page.totals).toEqual({ open: 1, claimed: 1, done: 1, failed: 0, awaiting_approval: 0, rejected: 0 })
          seen.push(...page.tasks.map((t) => t.id))
          cursor = page.next_cursor
          if (cursor === null) break
        }
        expect(seen, `bob, limit ${limit}`).toEqual(bobs)
      }
      const anns = yield* ok("relay_list_tasks", { claimed_by: "ann" })
      expect(anns.tasks).toEqual([])
      expect(Object.values(anns.totals as Record<string, number>).every((n) => n === 0)).toBe(true)
    }))

  it.effect("tasks stamped after the reader's now (an import, another clock) still come first", () =>
    Effect.gen(function*() {
      const start = Date.parse("2027-03-01T00:00:00Z")
      yield* TestClock.setTime(start)
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) {
        ids.push((yield* ok("relay_post_task", { title: `later ${i}`, written_by: "ann" })).task.id)
        yield* TestClock.adjust(86_400_000)
      }
      // The reader's clock is ten days behind every one of them.
      yield* TestClock.setTime(start - 10 * 86_400_000)
      const first = yield* ok("relay_list_tasks", { limit: 2 })
      expect(first.tasks.map((t) => t.id)).toEqual([ids[4], ids[3]])
      expect(first.next_cursor).not.toBeNull()
    }))
})
