import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { modelTestLayer } from "../support/modelLayer.js"
import { failed } from "../support/runTool.js"
import { decide, retract, save, state } from "./statusCalls.js"

/**
 * Status filters and relay_retract_fact in-process (decode, policies, handler, rendering) on the
 * FactStore of the pure model (FactStoreTest): the input rules, statuses' precedence and request_id
 * retries as the tools answer them. The store's own reads of the same are in status.test.ts.
 */

layer(modelTestLayer)("status filters and retractions on the model", (it) => {
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
  it.effect("precedence: retracted over superseded over stale; a request_id retry answers like the first try", () =>
    Effect.gen(function*() {
      const root = yield* save("Cache needs a store")
      const a = yield* save("Cache in Redis", { parent_fact_id: root })
      const b = yield* save("Cache in memory", { parent_fact_id: root })
      const c = yield* save("Memory cache is 1 GB", { parent_fact_id: b })
      yield* decide(a, b, "shared", "zed")
      yield* retract(b, { request_id: "retract-b-1" })
      const retry = yield* retract(b, { request_id: "retract-b-1" })
      expect(retry.already_retracted).toBe(false)
      const changed = yield* failed("relay_retract_fact", {
        fact_id: b,
        reason: "another reason",
        retracted_by: "zed",
        request_id: "retract-b-1"
      })
      expect(changed.code).toBe("invalid_input")
      expect(changed.message).toMatch(/^request_id: /)
      yield* retract(a)
      yield* retract(root)
      const all = yield* state({ status: "any" })
      expect(all.filter(([id]) => [root, a, b, c].includes(id))).toEqual([
        [c, "stale"],
        [b, "retracted"],
        [a, "retracted"],
        [root, "retracted"]
      ])
      // Stale: under a superseded or a retracted fact, whichever; superseded shows unless retracted.
      const d = yield* save("Cache eviction is LRU", { parent_fact_id: a })
      const e = yield* save("Cache eviction is LFU", { parent_fact_id: a })
      yield* decide(d, e, "simpler", "zed")
      expect(
        yield* state({ status: ["superseded", "stale"] }).pipe(
          Effect.map((l) => l.filter(([id]) => [d, e].includes(id)))
        )
      )
        .toEqual([[e, "superseded"], [d, "stale"]])
    }))

  it.effect("bad input, an unknown fact or a secret in the reason: a contract code and nothing written", () =>
    Effect.gen(function*() {
      const f = yield* save("Deploys go through the staging cluster first")
      const missing = yield* failed("relay_retract_fact", {
        fact_id: "00000000-0000-4000-8000-000000000000",
        reason: "x",
        retracted_by: "zed"
      })
      expect(missing.code).toBe("fact_not_found")
      expect(missing.message).toMatch(/^fact_id: /)
      const secret = yield* failed("relay_retract_fact", {
        fact_id: f,
        reason: "leaked ghp_R4nd0mT0k3nV4lu3Xq9Lk2Zp7Tn1Vb5Mc8Hd3 here",
        retracted_by: "zed"
      })
      expect(secret.code).toBe("secret_detected")
      expect(secret.message).toMatch(/^reason /)
      expect(secret.message).not.toContain("ghp_R4nd0m")
      for (
        const bad of [{ reason: "   " }, { reason: "x".repeat(501) }, { retracted_by: "no spaces allowed" }, {
          fact_id: "nope"
        }]
      ) {
        const e = yield* failed("relay_retract_fact", { fact_id: f, reason: "fine", retracted_by: "zed", ...bad })
        expect(e.code).toBe("invalid_input")
      }
      expect(yield* state({ status: "retracted" }).pipe(Effect.map((l) => l.map(([id]) => id)))).not.toContain(f)
    }))
})
