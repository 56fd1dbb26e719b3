import { expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { bulkSave } from "../../src/bulk/bulkSave.js"
import { ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"
import { savesElsewhere } from "./shapeRuns.js"

/**
 * One parent with 6,000 children that all say the same thing and one that differs. Conflicts and
 * briefings paired the children (18 million pairs): both answered `unavailable` after 2.5 s and froze
 * FalkorDB for every other graph meanwhile. Now children are grouped by their stored content key:
 * every child is in an open pair (each duplicate differs from the one, the one from all of them),
 * the answer comes at once, and saves into another graph all get through while it is read.
 */
const duplicates = 6000

layer(relayTestLayer("duplicates"))("6,000 duplicates and one differing child under one parent", (it) => {
  it.effect(
    "conflicts and briefings answer correctly; another graph's saves all succeed meanwhile",
    () =>
      Effect.gen(function*() {
        const item = (content: string, extra: Record<string, unknown>) => ({
          content,
          written_by: "flooder",
          session_id: "dup",
          ...extra
        })
        const saved = yield* bulkSave([
          item("Which queue do we use?", { request_id: "root" }),
          ...Array.from({ length: duplicates }, () => item("same text", { parent_request_id: "root" })),
          item("a different answer", { parent_request_id: "root" })
        ])
        const parent = saved[0]!.id
        const newest = saved.slice(1).reverse().slice(0, 20).map((s) => s.id)

        // Another client saving into its own graph the whole time.
        const saves = yield* savesElsewhere(30)

        const started = performance.now()
        const conflicts = yield* ok("relay_detect_conflicts", {})
        const conflictsMs = performance.now() - started
        expect(conflicts.conflicts.map((c) => [c.parent.id, c.children_total])).toEqual([[parent, duplicates + 1]])
        expect(conflicts.conflicts[0]!.children.map((f) => f.id)).toEqual(newest)

        const briefing = yield* ok("relay_get_briefing", { my_name: "reader", limit: 5 })
        expect(briefing.open_conflicts.map((c) => [c.parent.id, c.children_total])).toEqual([[parent, duplicates + 1]])

        const results = yield* Fiber.join(saves)
        expect(results.filter((r) => r._tag === "Left")).toEqual([])
        console.log(`6,000 duplicates + 1: detect_conflicts ${conflictsMs.toFixed(0)} ms end to end (machine shared)`)

        // Record the one compatible with... nothing: resolve it instead; then no conflict is left open.
        yield* ok("relay_resolve_conflict", {
          winner_fact_id: saved[1]!.id,
          loser_fact_id: saved[duplicates + 1]!.id,
          reason: "the duplicates agree",
          resolved_by: "lead"
        })
        expect((yield* ok("relay_detect_conflicts", {})).conflicts).toEqual([])
      }).pipe(Effect.scoped),
    120_000
  )
})
