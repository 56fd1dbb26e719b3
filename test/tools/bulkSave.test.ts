import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { bulkSave } from "../../src/bulk/bulkSave.js"
import { requestFactId } from "../../src/domain/requestId.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * The bulk path (src/bulk/bulkSave.ts, FactStore.saveMany): what it writes reads back through the
 * tools exactly as saves would (forks, search, stamps in order), request_id makes a repeat write
 * nothing, and a bad item anywhere writes nothing at all.
 */
const countFacts = Effect.flatMap(
  GraphDatabase,
  (db) => db.read("MATCH (f:Fact) RETURN count(f) AS n", {}, Schema.Struct({ n: Schema.Number }))
).pipe(
  Effect.map((rows) => rows[0]?.n ?? 0)
)

const item = (content: string, extra: Record<string, unknown> = {}) => ({
  content,
  written_by: "loader",
  session_id: "bulk",
  ...extra
})

layer(relayTestLayer("bulk"))("the bulk path", (it) => {
  it.effect("writes what saves write: parents in the batch, forks, search terms, stamps in order", () =>
    Effect.gen(function*() {
      const before = yield* ok("relay_save_fact", item("Where do sessions live?"))
      const saved = yield* bulkSave([
        item("Sessions live in Redis", { parent_fact_id: before.fact.id, request_id: "r1" }),
        item("Sessions live in Postgres", { parent_fact_id: before.fact.id, kind: "choice" }),
        item("Redis runs with appendonly", { parent_request_id: "r1" }),
        item("  Queue: use   NATS  ")
      ])
      expect(saved.map((s) => s.existed)).toEqual([false, false, false, false])
      expect(saved[0]!.id).toBe(requestFactId("loader", "r1"))
      const stamps = saved.map((s) => Date.parse(s.created_at))
      expect(stamps[0]!).toBeGreaterThan(Date.parse(before.fact.created_at))
      expect([...stamps].sort((a, b) => a - b)).toEqual(stamps)
      expect(new Set(stamps).size).toBe(4)

      const conflicts = yield* ok("relay_detect_conflicts", {})
      expect(conflicts.conflicts.map((c) => c.parent.id)).toEqual([before.fact.id])
      expect(conflicts.conflicts[0]!.children.map((f) => f.id).sort()).toEqual([saved[0]!.id, saved[1]!.id].sort())
      const context = yield* ok("relay_get_context", { fact_id: saved[2]!.id })
      expect(context.chain.map((f) => f.id)).toEqual([before.fact.id, saved[0]!.id, saved[2]!.id])
      const hits = yield* ok("relay_search", { query: "appendonly" })
      expect(hits.hits.map((h) => h.fact.id)).toEqual([saved[2]!.id])
      // Trimmed as a save trims; a later save under the same parent sees the bulk children as siblings.
      const state = yield* ok("relay_get_current_state", { limit: 1 })
      expect(state.facts[0]!.content).toBe("Queue: use   NATS")
      const dup = yield* ok("relay_save_fact", item("sessions LIVE in redis", { parent_fact_id: before.fact.id }))
      expect(dup.duplicate_of?.id).toBe(saved[0]!.id)
    }))

  it.effect("request_id: the same call again writes nothing and answers what landed; other content is refused", () =>
    Effect.gen(function*() {
      const items = [
        item("Deploys go out on Tuesdays", { request_id: "d1" }),
        item("and roll back in 5 minutes", {
          request_id: "d2",
          parent_request_id: "d1"
        })
      ]
      const first = yield* bulkSave(items)
      const n = yield* countFacts
      const again = yield* bulkSave(items)
      expect(again.map((s) => s.existed)).toEqual([true, true])
      expect(again.map((s) => [s.id, s.created_at])).toEqual(first.map((s) => [s.id, s.created_at]))
      expect(yield* countFacts).toBe(n)
      const other = yield* Effect.flip(bulkSave([item("something new", { request_id: "fresh" }), {
        ...items[0],
        content: "Deploys go out on Fridays"
      }]))
      expect(other._tag).toBe("InvalidInput")
      expect(other.message).toMatch(/^facts\.1\.request_id: /)
      expect(yield* countFacts).toBe(n)
    }))

  it.effect("a bad item anywhere writes nothing: the error names the item and the field", () =>
    Effect.gen(function*() {
      const n = yield* countFacts
      const cases: ReadonlyArray<readonly [ReadonlyArray<unknown>, string, RegExp]> = [
        [[item("fine"), item("AKIAIOSFODNN7EXAMPLE is the key")], "SecretDetected", /^facts\.1\.content /],
        [
          [item("fine"), item("x", { parent_fact_id: "0b8f2a52-8b1e-4a8e-9d36-0c6a1b8f2a52" })],
          "FactNotFound",
          /^facts\.1\.parent_fact_id: /
        ],
        [
          [item("fine", { parent_request_id: "later" }), item("x", { request_id: "later" })],
          "InvalidInput",
          /^facts\.0\.parent_request_id: /
        ],
        [[item("fine"), item("   ")], "InvalidInput", /^facts\.1\.content: /],
        [[item("fine"), { ...item("x"), colour: "red" }], "InvalidInput", /^facts\.1\.colour: /]
      ]
      for (const [items, tag, message] of cases) {
        const e = yield* Effect.flip(bulkSave(items))
        expect(e._tag).toBe(tag)
        expect(e.message).toMatch(message)
      }
      expect(yield* countFacts).toBe(n)
    }))

  it.effect("many facts in batches: 5,000 roots and children in a few statements", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: 5000 }, (_, i) =>
        item(`bulk fact ${i} about topic ${i % 50}`, {
          request_id: `many-${i}`,
          ...(i >= 50 ? { parent_request_id: `many-${i % 50}` } : {})
        }))
      const started = performance.now()
      const saved = yield* bulkSave(items)
      const seconds = (performance.now() - started) / 1000
      console.log(
        `bulk path: ${items.length} facts in ${seconds.toFixed(2)} s (${Math.round(items.length / seconds)}/s)`
      )
      expect(saved.length).toBe(5000)
      const impact = yield* ok("relay_get_impact", { fact_id: saved[0]!.id, limit: 500 })
      expect(impact.dependents.length).toBe(99)
    }))
})
