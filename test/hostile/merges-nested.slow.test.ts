import { expect, layer } from "@effect/vitest"
import { Effect, Fiber, Schema } from "effect"
import { bulkSave } from "../../src/bulk/bulkSave.js"
import { neverStale } from "../../src/layers/factStore/staleness.js"
import { verifyStored } from "../../src/layers/factStore/verifyStored.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"
import { savesElsewhere, timedIn } from "./shapeRuns.js"

/**
 * The deepest legal nesting of merges with the most below it: four merges one above another (each
 * on the one before and on a fact of a one-parent line, the shape that made a walk quadratic before
 * merge_depth counted every merge), eight parents on the last, and a 20,000-deep chain under it built
 * by the bulk path. A walk down reads each fact at most five times (docs/design/several-parents.md):
 * a retraction of the top marks all of it once, a confirmation of the last merge refreshes the chain
 * alone, and another graph's saves all land meanwhile. The times are printed beside
 * chains-stored.test.ts's one-parent chain of the same depth.
 */
const depth = 20_000

const timed = timedIn("20,000 under 4 nested merges")

const save = (content: string, extra: Record<string, unknown>) =>
  ok("relay_save_fact", { content, written_by: "deep", session_id: "deep", kind: "detail", ...extra })

layer(relayTestLayer("merges_nested"))("a 20,000-deep chain under four nested merges", (it) => {
  it.effect(
    "a retraction of the top marks all of it stale, a confirmation of the last merge brings the chain back",
    () =>
      Effect.gen(function*() {
        const top = yield* ok("relay_save_fact", {
          content: "The importer reads CSV",
          written_by: "deep",
          session_id: "deep"
        })
        const line = [top.fact.id]
        let last = top.fact.id
        for (let i = 0; i < 4; i++) {
          const h = yield* save(`CSV column ${i} is a date`, { parent_fact_id: line.at(-1)! })
          line.push(h.fact.id)
          // The last merge names eight parents: the merge before and seven facts of the line.
          const others = i === 3 ? [...line.slice(-7)] : [h.fact.id]
          const m = yield* save(`Dates of column ${i} are parsed as UTC`, { builds_on: [last, ...others] })
          last = m.fact.id
        }
        expect((yield* ok("relay_get_context", { fact_id: last, limit: 20 })).chain).toHaveLength(9)
        const chain = yield* timed(
          "bulk load under the last merge",
          bulkSave(Array.from({ length: depth }, (_, i) => ({
            content: `row ${i} of the import`,
            written_by: "deep",
            session_id: "deep",
            kind: "detail" as const,
            request_id: `row-${i}`,
            ...(i === 0 ? { parent_fact_id: last } : { parent_request_id: `row-${i - 1}` })
          })))
        )
        const facts = 1 + 4 + 4 + depth

        const saves = yield* savesElsewhere(30)
        const retracted = yield* timed(
          "retract the top",
          ok("relay_retract_fact", { fact_id: top.fact.id, reason: "the importer reads JSON", retracted_by: "lead" })
        )
        expect(retracted.stale.length).toBeGreaterThan(0)
        const db = yield* GraphDatabase
        const staleNow = db.read(
          `MATCH (f:Fact) WHERE f.stale_at < ${neverStale} RETURN count(f) AS n`,
          {},
          Schema.Struct({ n: Schema.Number })
        )
        expect(yield* staleNow).toEqual([{ n: facts - 1 }])
        expect((yield* ok("relay_get_current_state", { limit: 5 })).facts).toEqual([])
        const impact = yield* timed("impact of the top", ok("relay_get_impact", { fact_id: top.fact.id, limit: 10 }))
        // The last merge is one hop from the top too (an extra parent): its chain starts at distance 2.
        expect(impact.dependents.map((d) => d.distance)).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 3, 4])
        const leaf = yield* timed(
          "context of the leaf",
          ok("relay_get_context", { fact_id: chain[depth - 1]!.id, limit: 2 })
        )
        expect(leaf.chain.map((f) => f.status)).toEqual(["stale", "stale"])
        const verify = verifyStored(db)
        expect(yield* timed("check-db --verify", verify)).toMatchObject({ facts, drifted: 0, examples: [] })

        // The last merge still holds: the chain below it (its own line) turns current, not the merges above.
        const confirmed = yield* timed(
          "confirm the last merge",
          ok("relay_confirm_fact", { fact_id: last, reason: "UTC still", confirmed_by: "lead" })
        )
        expect([confirmed.fact.status, confirmed.refreshed]).toEqual(["active", depth])
        const current = yield* ok("relay_get_current_state", { limit: 2 })
        expect(current.facts.map((f) => f.content)).toEqual([
          `row ${depth - 1} of the import`,
          `row ${depth - 2} of the import`
        ])
        expect(yield* staleNow).toEqual([{ n: 7 }])
        expect(yield* verify).toMatchObject({ facts, drifted: 0, examples: [] })

        const results = yield* Fiber.join(saves)
        expect(results.filter((r) => r._tag === "Left")).toEqual([])
      }).pipe(Effect.scoped),
    180_000
  )
})
