import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { failed, ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * Status and writer filters on relay_get_current_state, in-process (decode, policies, handler):
 * a small memory with a superseded fact and a stale one under it, two writers, and facts spread
 * over days so the store's widening windows are crossed by the filters.
 */
const day = 24 * 60 * 60 * 1000

const save = (content: string, extra: Record<string, unknown> = {}) =>
  ok("relay_save_fact", { content, written_by: "claude-desktop", session_id: "s1", ...extra }).pipe(
    Effect.map((r) => r.fact.id as string)
  )

const state = (args: Record<string, unknown>) =>
  ok("relay_get_current_state", { limit: 100, ...args }).pipe(
    Effect.map((r) => (r.facts as Array<any>).map((f) => [f.id as string, f.status as string]))
  )

/** Every page of current_state with `limit`, through next_cursor. */
const allPages = (args: Record<string, unknown>, limit: number) =>
  Effect.gen(function*() {
    const out: Array<string> = []
    let cursor: string | undefined
    for (let i = 0; i < 100; i++) {
      const r = yield* ok("relay_get_current_state", { ...args, limit, ...(cursor === undefined ? {} : { cursor }) })
      out.push(...(r.facts as Array<any>).map((f) => f.id as string))
      if (r.next_cursor === null) return out
      expect(r.facts.length).toBeGreaterThan(0)
      cursor = r.next_cursor
    }
    throw new Error("paging did not end")
  })

layer(relayTestLayer("status"))("relay_get_current_state filters", (it) => {
  it.effect("active only by default, other statuses on request, writer filter, exact pages", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-03-01T00:00:00.000Z"))
      // Old active facts, three days back: a filtered page must widen its window to reach them.
      const old1 = yield* save("old one", { written_by: "zed" })
      const old2 = yield* save("old two")
      const old3 = yield* save("old three", { written_by: "zed" })
      yield* TestClock.adjust(3 * day)
      const root = yield* save("Refresh tokens need a store")
      const redis = yield* save("Store them in Redis", { parent_fact_id: root, written_by: "cursor" })
      const cookies = yield* save("Store them in cookies", { parent_fact_id: root })
      const ttl = yield* save("Redis TTL is the token lifetime", { parent_fact_id: redis, written_by: "cursor" })
      const ttl2 = yield* save("TTL refreshed on use", { parent_fact_id: ttl, written_by: "zed" })
      yield* ok("relay_resolve_conflict", {
        winner_fact_id: cookies,
        loser_fact_id: redis,
        reason: "no extra service",
        resolved_by: "claude-desktop"
      })

      const active = [cookies, root, old3, old2, old1]
      expect(yield* state({})).toEqual(active.map((id) => [id, "active"]))
      expect(yield* state({ status: "active" })).toEqual(active.map((id) => [id, "active"]))
      expect(yield* state({ status: "superseded" })).toEqual([[redis, "superseded"]])
      expect(yield* state({ status: ["stale", "superseded"] })).toEqual([
        [ttl2, "stale"], [ttl, "stale"], [redis, "superseded"]
      ])
      expect((yield* state({ status: "any" })).map(([id]) => id)).toEqual([
        ttl2, ttl, cookies, redis, root, old3, old2, old1
      ])

      // Pages of 1 and 2 over the filtered list: the same facts, each once, in the same order.
      expect(yield* allPages({}, 1)).toEqual(active)
      expect(yield* allPages({}, 2)).toEqual(active)
      expect(yield* allPages({ status: "stale" }, 1)).toEqual([ttl2, ttl])

      expect(yield* state({ written_by: "zed" })).toEqual([[old3, "active"], [old1, "active"]])
      expect(yield* state({ written_by: "zed", status: "any" })).toEqual([
        [ttl2, "stale"], [old3, "active"], [old1, "active"]
      ])
      expect(yield* allPages({ written_by: "zed", status: "any" }, 1)).toEqual([ttl2, old3, old1])
      expect(yield* state({ written_by: "cursor" })).toEqual([])
      expect(yield* state({ written_by: "cursor", session_id: "s1", status: "any" })).toEqual([
        [ttl, "stale"], [redis, "superseded"]
      ])
      expect(yield* state({ written_by: "nobody" })).toEqual([])
    }))

  it.effect("a bad status or writer is invalid_input naming the field, never echoing it", () =>
    Effect.gen(function*() {
      for (const status of ["gone", [], ["active", "nope"], 3, ["active", "active", "active", "active", "active"]]) {
        const e = yield* failed("relay_get_current_state", { status })
        expect(e.code).toBe("invalid_input")
        expect(e.message).toMatch(/^status: /)
        expect(e.message).not.toContain("nope")
      }
      const w = yield* failed("relay_get_current_state", { written_by: "bad name!" })
      expect(w.code).toBe("invalid_input")
      expect(w.message).toMatch(/^written_by: /)
      expect(w.message).not.toContain("bad name!")
    }))
})
