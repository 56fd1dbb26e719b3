import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

const save = (content: string, extra: Record<string, unknown> = {}) =>
  ok("relay_save_fact", { content, written_by: "claude-desktop", session_id: "s1", kind: "detail", ...extra })

/**
 * Reads run a lean statement while the graph has no merge (layers/factStore/mergeGate.ts): the
 * first merge saved must switch them to the walks through extra parents, at once and for good.
 */
layer(relayTestLayer("merge_gate"))("reads in a graph that gets its first merge", (it) => {
  it.effect("impact, context and a retraction's stale list reach the first merge saved", () =>
    Effect.gen(function*() {
      const root = yield* save("Exports run nightly")
      const child = yield* save("Exports are CSV", { parent_fact_id: root.fact.id })
      const other = yield* save("Reports read the exports")
      // Read lean: nothing builds on two facts yet.
      const before = yield* ok("relay_get_impact", { fact_id: root.fact.id })
      expect(before.dependents.map((d) => d.fact.id)).toEqual([child.fact.id])
      const merge = yield* save("Reports parse the CSV exports", { builds_on: [other.fact.id, child.fact.id] })
      const after = yield* ok("relay_get_impact", { fact_id: root.fact.id })
      expect(after.dependents.map((d) => [d.fact.id, d.distance])).toEqual([[child.fact.id, 1], [merge.fact.id, 2]])
      const context = yield* ok("relay_get_context", { fact_id: merge.fact.id })
      expect(context.chain.map((f) => f.id).sort()).toEqual(
        [root.fact.id, child.fact.id, other.fact.id, merge.fact.id].sort()
      )
      const retracted = yield* ok("relay_retract_fact", {
        fact_id: root.fact.id,
        reason: "exports run hourly",
        retracted_by: "lead"
      })
      expect(retracted.stale.map((d) => d.fact.id)).toEqual([child.fact.id, merge.fact.id])
    }))
})

layer(relayTestLayer("merge_gate_write"))("a decision right after a graph's first merge", (it) => {
  it.effect("marks the merge stale through its extra parent: the lean statement writes nothing and the full one runs", () =>
    Effect.gen(function*() {
      const root = yield* save("Exports run nightly")
      const csv = yield* save("Exports are CSV", { parent_fact_id: root.fact.id, kind: "choice" })
      const json = yield* save("Exports are JSON", { parent_fact_id: root.fact.id, kind: "choice" })
      const other = yield* save("Reports read the exports")
      // The first merge, and at once a decision against its extra parent (no read in between).
      const merge = yield* save("Reports parse the CSV exports", { builds_on: [other.fact.id, csv.fact.id] })
      const args = {
        winner_fact_id: json.fact.id,
        loser_fact_id: csv.fact.id,
        reason: "JSON keeps types",
        resolved_by: "lead"
      }
      const resolved = yield* ok("relay_resolve_conflict", args)
      expect(resolved.already_resolved).toBe(false)
      expect(resolved.stale.map((d) => d.fact.id)).toEqual([merge.fact.id])
      const stale = yield* ok("relay_get_current_state", { status: "stale", limit: 10 })
      expect(stale.facts.map((f) => f.id)).toEqual([merge.fact.id])
      // One decision, once: the lean try wrote no edge.
      expect((yield* ok("relay_resolve_conflict", args)).already_resolved).toBe(true)
    }))
})

layer(relayTestLayer("merge_gate_retract"))("a retraction right after a graph's first merge", (it) => {
  it.effect("marks the merge stale through its extra parent and records one retraction", () =>
    Effect.gen(function*() {
      const root = yield* save("Exports run nightly")
      const csv = yield* save("Exports are CSV", { parent_fact_id: root.fact.id })
      const other = yield* save("Reports read the exports")
      const merge = yield* save("Reports parse the CSV exports", { builds_on: [other.fact.id, csv.fact.id] })
      const args = { fact_id: csv.fact.id, reason: "exports are Parquet", retracted_by: "lead" }
      const retracted = yield* ok("relay_retract_fact", args)
      expect(retracted.already_retracted).toBe(false)
      expect(retracted.stale.map((d) => d.fact.id)).toEqual([merge.fact.id])
      const stale = yield* ok("relay_get_current_state", { status: "stale", limit: 10 })
      expect(stale.facts.map((f) => f.id)).toEqual([merge.fact.id])
      expect((yield* ok("relay_retract_fact", args)).already_retracted).toBe(true)
    }))
})
