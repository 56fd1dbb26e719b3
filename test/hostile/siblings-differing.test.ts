import { expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { bulkSave } from "../../src/bulk/bulkSave.js"
import { ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"
import { savesElsewhere, timedIn } from "./shapeRuns.js"

/**
 * Issue 22's wide shape: one parent with 5,000 children that all say something different (built
 * by the bulk path). Every child is in an open pair with every other; conflicts, briefings and a
 * save under the parent must answer one page of them with the right totals, at once, and another
 * graph's saves all land while they are read. A resolve then settles one child: 4,999 stay open.
 */
const width = 5000
const timed = timedIn("5,000 differing siblings")

layer(relayTestLayer("siblings_differing"))("5,000 differing siblings under one parent", (it) => {
  it.effect(
    "conflicts, briefing and a save answer a page with the right totals; other graphs' saves land",
    () =>
      Effect.gen(function*() {
        const item = (content: string, extra: Record<string, unknown>) => ({
          content,
          written_by: "wide",
          session_id: "wide",
          ...extra
        })
        const saved = yield* timed(
          "bulk load",
          bulkSave([
            item("Which region do we deploy to?", { request_id: "root" }),
            ...Array.from(
              { length: width },
              (_, i) => item(`deploy to region number ${i}`, { parent_request_id: "root" })
            )
          ])
        )
        const parent = saved[0]!.id
        const saves = yield* savesElsewhere(30)

        const conflicts = yield* timed("detect_conflicts", ok("relay_detect_conflicts", {}))
        expect(conflicts.conflicts.map((c) => [c.parent.id, c.children_total])).toEqual([[parent, width]])
        expect(conflicts.conflicts[0]!.children.map((f) => f.id)).toEqual(
          saved.slice(1).reverse().slice(0, conflicts.conflicts[0]!.children.length).map((s) => s.id)
        )
        const briefing = yield* timed("briefing", ok("relay_get_briefing", { my_name: "reader", limit: 5 }))
        expect(briefing.open_conflicts.map((c) => [c.parent.id, c.children_total])).toEqual([[parent, width]])

        const one = yield* timed(
          "save under the parent",
          ok("relay_save_fact", {
            content: "deploy to two regions",
            written_by: "w",
            session_id: "w",
            parent_fact_id: parent
          })
        )
        expect(one.fork?.siblings_total).toBe(width)
        expect(one.fork!.siblings.length).toBeLessThan(width)

        yield* timed(
          "resolve one",
          ok("relay_resolve_conflict", {
            winner_fact_id: one.fact.id,
            loser_fact_id: saved[1]!.id,
            reason: "two regions",
            resolved_by: "lead"
          })
        )
        const after = yield* ok("relay_detect_conflicts", {})
        expect(after.conflicts.map((c) => c.children_total)).toEqual([width])

        const results = yield* Fiber.join(saves)
        expect(results.filter((r) => r._tag === "Left")).toEqual([])
      }).pipe(Effect.scoped),
    120_000
  )
})
