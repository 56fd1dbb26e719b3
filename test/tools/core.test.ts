import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { FactStore } from "../../src/services/FactStore.js"
import { modelTestLayer } from "../support/modelLayer.js"
import { failed, ok } from "../support/runTool.js"

const save = (content: string, extra: Record<string, unknown> = {}) =>
  ok("relay_save_fact", { content, written_by: "claude-desktop", session_id: "s1", ...extra })

/**
 * The core tools in-process (decode, policies, handler, rendering) on the FactStore of the pure
 * model (FactStoreTest): what they answer, not how the store's statements find it, which
 * test/rules/testLayer.test.ts and the store's own tests check on FalkorDB.
 */
layer(modelTestLayer)("core tools", (it) => {
  it.effect("saves a root fact with no fork and no duplicate", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00.000Z"))
      const r = yield* save("  We use   Postgres 16 ")
      expect(r.fact.content).toBe("We use   Postgres 16")
      expect(r.fact.parent_id).toBeNull()
      expect(r.fact.status).toBe("active")
      expect(r.fact.created_at).toBe("2026-01-01T00:00:00.000Z")
      expect(r.fork).toBeNull()
      expect(r.duplicate_of).toBeNull()
    }))

  it.effect("reports forks and duplicates under the same parent", () =>
    Effect.gen(function*() {
      const root = yield* save("Refresh tokens need a store")
      const a = yield* save("Store refresh tokens in cookies", { parent_fact_id: root.fact.id })
      expect(a.fork).toBeNull()
      const b = yield* save("Store refresh tokens in Redis", { parent_fact_id: root.fact.id, written_by: "cursor" })
      expect(b.fork!.parent_id).toBe(root.fact.id)
      expect(b.fork!.siblings.map((s) => s.id)).toEqual([a.fact.id])
      const c = yield* save("  store REFRESH tokens   in redis", { parent_fact_id: root.fact.id })
      expect(c.duplicate_of!.id).toBe(b.fact.id)
      expect(c.fork!.siblings.map((s) => s.id)).toEqual([a.fact.id])
    }))

  it.effect("context is root first, the fact last; impact has distances", () =>
    Effect.gen(function*() {
      const r = yield* save("root")
      const c1 = yield* save("child", { parent_fact_id: r.fact.id })
      const g1 = yield* save("grandchild", { parent_fact_id: c1.fact.id })
      const ctx = yield* ok("relay_get_context", { fact_id: g1.fact.id })
      expect(ctx.chain.map((f) => f.id)).toEqual([r.fact.id, c1.fact.id, g1.fact.id])
      const imp = yield* ok("relay_get_impact", { fact_id: r.fact.id })
      expect(imp.dependents.map((d) => [d.fact.id, d.distance])).toEqual([[c1.fact.id, 1], [g1.fact.id, 2]])
      const none = yield* ok("relay_get_impact", { fact_id: g1.fact.id })
      expect(none.dependents).toEqual([])
    }))

  it.effect("impact and important facts refuse a cursor of another tool or tampered with, in one message", () =>
    Effect.gen(function*() {
      const root = yield* save("cursor root")
      yield* save("cursor child", { parent_fact_id: root.fact.id })
      yield* save("cursor child two", { parent_fact_id: root.fact.id })
      const first = yield* ok("relay_get_impact", { fact_id: root.fact.id, limit: 1 })
      const second = yield* ok("relay_get_impact", { fact_id: root.fact.id, limit: 1, cursor: first.next_cursor })
      expect(second.dependents.map((d) => d.fact.content)).toEqual(["cursor child two"])
      const context = (yield* ok("relay_get_context", { fact_id: root.fact.id, limit: 1 })).next_cursor
      const wire = (key: ReadonlyArray<unknown>) => Buffer.from(JSON.stringify(key)).toString("base64url")
      const refused = { code: "invalid_input", message: "cursor: must be a next_cursor returned by this tool" }
      for (const cursor of ["nope", wire([1, 2]), wire([1.5, 2, 3]), wire(["a", 1, 2]), wire([1, 2, 3, 4, 5, 6])]) {
        expect(yield* failed("relay_get_impact", { fact_id: root.fact.id, cursor }), cursor).toEqual(refused)
      }
      for (const cursor of [first.next_cursor, context, "nope", wire([1, 0.5]), wire(["a", 1])]) {
        expect(yield* failed("relay_get_important_facts", { cursor }), String(cursor)).toEqual(refused)
      }
    }))

  it.effect("current state is newest first and filters by session", () =>
    Effect.gen(function*() {
      const x = yield* save("x one", { session_id: "only-me" })
      const y = yield* save("x two", { session_id: "only-me" })
      const state = yield* ok("relay_get_current_state", { session_id: "only-me" })
      expect(state.facts.map((f) => f.id)).toEqual([y.fact.id, x.fact.id])
      const one = yield* ok("relay_get_current_state", { limit: 1 })
      expect(one.facts).toHaveLength(1)
    }))

  it.effect("unknown ids and bad input answer with contract codes", () =>
    Effect.gen(function*() {
      const missing = "3f1c1a52-2b7a-4a53-9f57-0d7d0f0f0f0f"
      expect((yield* failed("relay_get_context", { fact_id: missing })).code).toBe("fact_not_found")
      const e = yield* failed("relay_save_fact", {
        content: "x",
        written_by: "a",
        session_id: "s",
        parent_fact_id: missing
      })
      expect(e.code).toBe("fact_not_found")
      expect(e.message).toContain("parent_fact_id")
      const bad = yield* failed("relay_get_current_state", { limit: 0 })
      expect(bad).toMatchObject({ code: "invalid_input" })
      expect(bad.message).toContain("limit")
      const extra = yield* failed("relay_get_context", { fact_id: missing, nope: 1 })
      expect(extra.message).toContain("nope")
    }))

  it.effect("an upper-cased id is the same fact; a token in a label is refused", () =>
    Effect.gen(function*() {
      const r = yield* save("ids are lower case")
      const ctx = yield* ok("relay_get_context", { fact_id: r.fact.id.toUpperCase() })
      expect(ctx.chain.map((f) => f.id)).toEqual([r.fact.id])
      const before = (yield* ok("relay_get_current_state", { limit: 100 })).facts.length
      const token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
      const e = yield* failed("relay_save_fact", { content: "fine", written_by: "a", session_id: token })
      expect(e.code).toBe("secret_detected")
      expect(e.message).toContain("session_id")
      expect(e.message).not.toContain(token)
      expect((yield* ok("relay_get_current_state", { limit: 100 })).facts.length).toBe(before)
    }))

  it.effect("a retried resolve of the same call still answers already_resolved: false; another call true", () =>
    Effect.gen(function*() {
      const root = yield* save("retry root")
      const a = yield* save("retry a", { parent_fact_id: root.fact.id })
      const b = yield* save("retry b", { parent_fact_id: root.fact.id })
      const store = yield* FactStore
      const resolution = { callId: "call-1", winnerId: a.fact.id, loserId: b.fact.id, reason: "first", resolvedBy: "x" }
      const first = yield* store.resolve(resolution)
      // A retry resends the same arguments (the same call id with another reason is refused: request_id reuse).
      const retried = yield* store.resolve(resolution)
      const other = yield* store.resolve({ ...resolution, callId: "call-2", reason: "third" })
      expect([first.alreadyResolved, retried.alreadyResolved, other.alreadyResolved]).toEqual([false, false, true])
      expect([retried.reason, other.reason]).toEqual(["first", "first"])
    }))
})
