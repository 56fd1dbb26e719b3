import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { FactStore } from "../../src/services/FactStore.js"
import { ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * Issue 44: a thread of 1,000 procedures that all match one goal is ranked from a bounded window of
 * the best matches, a page at a time (bounded.slow.test.ts holds the 100,000-run procedure and the
 * four racing server processes).
 */
layer(relayTestLayer("procedures_bounded"))("hostile shapes", (it) => {
  it.effect(
    "a thread of 1,000 procedures matching one goal: a bounded window, ranked a page at a time",
    () =>
      Effect.gen(function*() {
        const store = yield* FactStore
        const root = yield* ok("relay_save_fact", {
          content: "the deploy runbooks",
          written_by: "ann",
          session_id: "s"
        })
        const facts = Array.from({ length: 1000 }, (_, i) => ({
          id: randomUUID(),
          content: `deploy runbook variant ${i}`,
          writtenBy: "ann",
          sessionId: "s",
          parentId: root.fact.id,
          kind: "procedure" as const,
          requested: false
        }))
        for (let i = 0; i < facts.length; i += 250) yield* store.saveMany(facts.slice(i, i + 250))
        for (const [i, f] of facts.entries()) {
          if (i % 100 === 0) {
            yield* store.writeSteps({
              id: f.id,
              version: 1,
              lineage: [],
              preconditions: [],
              steps: ["step one", "step two"]
            })
          }
        }
        // Some have runs: the best record leads whatever the text ranks first.
        yield* ok("relay_record_run", { procedure_id: facts[500]!.id, outcome: "success", ran_by: "bob" })
        const page = yield* ok("relay_find_procedure", { goal: "deploy runbook" })
        expect(page.procedures).toHaveLength(3)
        expect(page.next_cursor).not.toBeNull()
        const next = yield* ok("relay_find_procedure", { goal: "deploy runbook", cursor: page.next_cursor! })
        expect(next.procedures).toHaveLength(3)
        const ids = [...page.procedures, ...next.procedures].map((p) => p.fact.id)
        expect(new Set(ids).size).toBe(6)
      }),
    { timeout: 120_000 }
  )
})
