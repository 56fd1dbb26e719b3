import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { ok, runTool } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"
import { decide, retract, save, state } from "./statusCalls.js"

/**
 * Status and writer filters on relay_get_current_state, in-process (decode, policies, handler):
 * a small memory with a superseded fact and a stale one under it, two writers, and facts spread
 * over days so the store's widening windows are crossed by the filters.
 */
const day = 24 * 60 * 60 * 1000

/** Every page of current_state with `limit`, through next_cursor. */
const allPages = (args: Record<string, unknown>, limit: number) =>
  Effect.gen(function*() {
    const out: Array<string> = []
    let cursor: string | undefined
    for (let i = 0; i < 100; i++) {
      const r = yield* ok("relay_get_current_state", { ...args, limit, ...(cursor === undefined ? {} : { cursor }) })
      out.push(...r.facts.map((f) => f.id))
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
      yield* decide(cookies, redis, "no extra service")

      const active = [cookies, root, old3, old2, old1]
      expect(yield* state({})).toEqual(active.map((id) => [id, "active"]))
      expect(yield* state({ status: "active" })).toEqual(active.map((id) => [id, "active"]))
      expect(yield* state({ status: "superseded" })).toEqual([[redis, "superseded"]])
      expect(yield* state({ status: ["stale", "superseded"] })).toEqual([
        [ttl2, "stale"],
        [ttl, "stale"],
        [redis, "superseded"]
      ])
      expect((yield* state({ status: "any" })).map(([id]) => id)).toEqual([
        ttl2,
        ttl,
        cookies,
        redis,
        root,
        old3,
        old2,
        old1
      ])

      // Pages of 1 and 2 over the filtered list: the same facts, each once, in the same order.
      expect(yield* allPages({}, 1)).toEqual(active)
      expect(yield* allPages({}, 2)).toEqual(active)
      expect(yield* allPages({ status: "stale" }, 1)).toEqual([ttl2, ttl])

      expect(yield* state({ written_by: "zed" })).toEqual([[old3, "active"], [old1, "active"]])
      expect(yield* state({ written_by: "zed", status: "any" })).toEqual([
        [ttl2, "stale"],
        [old3, "active"],
        [old1, "active"]
      ])
      expect(yield* allPages({ written_by: "zed", status: "any" }, 1)).toEqual([ttl2, old3, old1])
      expect(yield* state({ written_by: "cursor" })).toEqual([])
      expect(yield* state({ written_by: "cursor", session_id: "s1", status: "any" })).toEqual([
        [ttl, "stale"],
        [redis, "superseded"]
      ])
      expect(yield* state({ written_by: "nobody" })).toEqual([])

      // Nothing hidden without a word: what the filter left out of a page's span is counted.
      const leftOut = (args: Record<string, unknown>) =>
        Effect.map(ok("relay_get_current_state", args), (r) => r.left_out)
      expect(yield* leftOut({})).toBe(3)
      // A page of 1 (cookies) spans from cookies to now: ttl2 and ttl are newer and stale.
      expect(yield* leftOut({ limit: 1 })).toBe(2)
      expect(yield* leftOut({ written_by: "zed" })).toBe(1)
      expect(yield* leftOut({ status: "superseded" })).toBe(7)
      expect(yield* leftOut({ status: "any" })).toBeUndefined()
      const text = yield* Effect.map(
        runTool("relay_get_current_state", {}),
        (r) => r.content[0]?.text ?? ""
      )
      // A one-page search says what its status filter left out too.
      const searched = (args: Record<string, unknown>) =>
        Effect.map(ok("relay_search", args), (r) => [r.hits.length, r.left_out])
      expect(yield* searched({ query: "Redis" })).toEqual([0, 2])
      expect(yield* searched({ query: "store" })).toEqual([2, 1])
      expect(yield* searched({ query: "store", status: "any" })).toEqual([3, undefined])
      expect(yield* searched({ query: "store", limit: 1 })).toEqual([1, undefined])
      const none = yield* runTool("relay_search", { query: "Redis" })
      expect(none.content[0]?.text).toContain(`2 fact(s) matching left out as stale, superseded or retracted`)
      expect(text).toContain(`3 fact(s) of this page's span left out as stale, superseded or retracted (status "any"`)
    }))
})

/**
 * The store sorts only a window's newest few facts first (four a row of the page) and sorts again
 * with no cut when the status leaves the page short: here the newest facts are mostly stale, so
 * the first sort holds none (limit 1) or too few (limit 2) active ones.
 */
layer(relayTestLayer("statusBuried"))("relay_get_current_state under many stale facts", (it) => {
  it.effect("pages stay exact when the newest facts of a window are mostly not active", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-03-01T00:00:00.000Z"))
      const first = yield* save("Tenants get their own schema")
      const root = yield* save("Refresh tokens need a store")
      const redis = yield* save("Store them in Redis", { parent_fact_id: root })
      const cookies = yield* save("Store them in cookies", { parent_fact_id: root })
      yield* decide(cookies, redis, "no extra service")
      const stale = (i: number) => save(`Redis detail ${i}`, { parent_fact_id: redis })
      for (let i = 0; i < 5; i++) yield* stale(i)
      const mid = yield* save("Rate limits are per tenant")
      for (let i = 5; i < 10; i++) yield* stale(i)

      const active = [mid, cookies, root, first]
      expect(yield* state({})).toEqual(active.map((id) => [id, "active"]))
      // limit 1: the first sort keeps 8 facts, one of them active; limit 2: 12, two active.
      expect(yield* allPages({}, 1)).toEqual(active)
      expect(yield* allPages({}, 2)).toEqual(active)
      expect(yield* allPages({}, 3)).toEqual(active)
      // No active fact among the newest 8 at all (the first sort gives no row).
      for (let i = 10; i < 20; i++) yield* stale(i)
      expect(yield* allPages({}, 1)).toEqual(active)
      expect(yield* allPages({ status: "superseded" }, 1)).toEqual([redis])
      // The same through a session's facts and as of a time (their own queries).
      expect(yield* allPages({ session_id: "s1" }, 1)).toEqual(active)
      yield* TestClock.adjust(60_000)
      const asOf = new Date(yield* TestClock.currentTimeMillis).toISOString()
      yield* TestClock.adjust(1)
      yield* save("Written after the as_of time")
      expect(yield* allPages({ as_of: asOf }, 1)).toEqual(active)
      expect(yield* allPages({ as_of: asOf, session_id: "s1" }, 2)).toEqual(active)
    }))
})

layer(relayTestLayer("retract"))("relay_retract_fact", (it) => {
  it.effect("retracted drops out of default reads, its dependents at any depth turn stale, the record stays", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-04-01T00:00:00.000Z"))
      const root = yield* save("Queue: we use Kafka for jobs")
      const mid = yield* save("Kafka topics are partitioned by tenant", { parent_fact_id: root })
      const deep = yield* save("Tenant partitions are rebalanced weekly", { parent_fact_id: mid, written_by: "cursor" })
      const deeper = yield* save("Rebalancing runs on Sundays", { parent_fact_id: deep, written_by: "cursor" })
      const other = yield* save("Postgres is the main database")
      yield* TestClock.adjust(1000)

      const r = yield* retract(mid, { reason: "  We never adopted Kafka  " })
      expect(r.fact.id).toBe(mid)
      expect(r.fact.status).toBe("retracted")
      expect(r.reason).toBe("We never adopted Kafka")
      expect(r.retracted_by).toBe("zed")
      expect(r.created_at).toBe("2026-04-01T00:00:01.000Z")
      expect(r.already_retracted).toBe(false)
      expect(r.stale.map((d) => [d.fact.id, d.distance, d.fact.status])).toEqual([[deep, 1, "stale"], [
        deeper,
        2,
        "stale"
      ]])
      expect(r.stale_next_cursor).toBeNull()

      // Default reads: only what stands.
      expect(yield* state({})).toEqual([[other, "active"], [root, "active"]])
      expect(yield* state({ status: "retracted" })).toEqual([[mid, "retracted"]])
      expect(yield* state({ status: "stale" })).toEqual([[deeper, "stale"], [deep, "stale"]])
      const search = (args: Record<string, unknown>) =>
        ok("relay_search", args).pipe(Effect.map((s) => s.hits.map((h) => [h.fact.id, h.fact.status])))
      expect(yield* search({ query: "topics" })).toEqual([])
      expect(yield* search({ query: "topics", status: "retracted" })).toEqual([[mid, "retracted"]])
      expect(yield* search({ query: "topics", status: "any" })).toEqual([[mid, "retracted"]])
      // Its stale dependent is out of the default too.
      expect(yield* search({ query: "tenant", status: "stale" })).toEqual([[deep, "stale"]])
      const briefing = yield* ok("relay_get_briefing", { my_name: "nobody", since: "2026-03-31T00:00:00.000Z" })
      expect(briefing.new_facts.map((f) => f.id)).toEqual([root, deep, deeper, other])
      const important = yield* ok("relay_get_important_facts", { limit: 100 })
      expect(important.facts.map((f) => f.fact.id)).not.toContain(mid)
      expect(important.facts).toHaveLength(4)

      // Reads by id show it, marked.
      const chain = yield* ok("relay_get_context", { fact_id: deeper })
      expect(chain.chain.map((f) => [f.id, f.status])).toEqual([
        [root, "active"],
        [mid, "retracted"],
        [deep, "stale"],
        [deeper, "stale"]
      ])
      const impact = yield* ok("relay_get_impact", { fact_id: root })
      expect(impact.dependents.map((d) => [d.fact.id, d.fact.status])).toEqual([
        [mid, "retracted"],
        [deep, "stale"],
        [deeper, "stale"]
      ])
      const clusters = yield* ok("relay_get_clusters", {})
      expect(clusters.clusters[0]!.facts.map((f) => f.status)).toEqual([
        "active",
        "retracted",
        "stale",
        "stale"
      ])

      // Idempotent: the first record answers, nothing new is written.
      const again = yield* retract(mid, { reason: "changed my mind", retracted_by: "cursor" })
      expect(again.already_retracted).toBe(true)
      expect([again.retraction_id, again.reason, again.retracted_by, again.created_at]).toEqual([
        r.retraction_id,
        "We never adopted Kafka",
        "zed",
        r.created_at
      ])
      // Saving under a retracted fact is allowed; the new fact is stale at once.
      const under = yield* ok("relay_save_fact", {
        content: "more on it",
        written_by: "zed",
        session_id: "s1",
        parent_fact_id: mid
      })
      expect(under.fact.status).toBe("stale")
    }))
})
