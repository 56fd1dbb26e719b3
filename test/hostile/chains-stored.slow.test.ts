import { expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { bulkSave } from "../../src/bulk/bulkSave.js"
import { verifyStored } from "../../src/layers/factStore/verifyStored.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"
import { savesElsewhere, timedIn } from "./shapeRuns.js"

/**
 * Issue 22's deep shape: a 20,000-deep chain built by the bulk path (20 batches, each inheriting its
 * staleness from the batch before; half of it under a fact that lost a decision) with three
 * differing facts under its leaf. Each fact's `stale`
 * was a walk to the root: at 20,000 deep the default reads answered `unavailable`, a save under the
 * leaf took 1.3-1.5 s, and other graphs' saves failed meanwhile. Now it is stored: the reads are
 * one hop a fact, and a retraction of the root marks the 5,000 dependents not stale already.
 * Confirmations then bring the chain back in two calls, each one statement over its subtree.
 */
const depth = 20_000

const timed = timedIn("20,000-deep chain")

layer(relayTestLayer("deep_stored"))("a 20,000-deep chain with three forks at its leaf", (it) => {
  it.effect(
    "reads answer right at once; retracting the root makes all of it stale; another graph's saves all land",
    () =>
      Effect.gen(function*() {
        const item = (i: number) => ({
          content: `step ${i} of the longest thread`,
          written_by: "deep",
          session_id: "deep",
          request_id: `step-${i}`,
          ...(i === 0 ? {} : { parent_request_id: `step-${i - 1}` })
        })
        const half = depth / 2
        const first = yield* timed(
          "bulk load of the first half",
          bulkSave(Array.from({ length: half }, (_, i) => item(i)))
        )
        // Step 5,000 loses a decision: all below it is stale, and so is every fact the second half
        // adds (ten batches, each inheriting from the batch before, the first from step 9,999).
        const better = yield* ok("relay_save_fact", {
          content: "step 5000, said better",
          written_by: "deep",
          session_id: "deep",
          parent_fact_id: first[4999]!.id
        })
        yield* ok("relay_resolve_conflict", {
          winner_fact_id: better.fact.id,
          loser_fact_id: first[5000]!.id,
          reason: "clearer",
          resolved_by: "lead"
        })
        const second = yield* timed(
          "bulk load of the second half, under a stale fact",
          bulkSave(Array.from({ length: half }, (_, k) => {
            const { parent_request_id: _p, ...rest } = item(half + k)
            return k === 0
              ? { ...rest, parent_fact_id: first[half - 1]!.id }
              : { ...rest, parent_request_id: `step-${half + k - 1}` }
          }))
        )
        const chain = [...first, ...second]
        const leaf = chain[depth - 1]!.id
        const forks = yield* Effect.forEach(["use kafka", "use nats", "use redis streams"], (content) =>
          timed(
            "save under the leaf",
            ok("relay_save_fact", { content, written_by: "deep", session_id: "deep", parent_fact_id: leaf })
          ))
        expect(forks[2]!.fork?.siblings_total).toBe(2)
        expect(forks.map((f) => f.fact.status)).toEqual(["stale", "stale", "stale"])

        // Another client saving into its own graph the whole time.
        const saves = yield* savesElsewhere(30)

        const state = yield* timed("current_state", ok("relay_get_current_state", { limit: 3 }))
        expect(state.facts.map((f) => f.content)).toEqual([
          "step 5000, said better",
          "step 4999 of the longest thread",
          "step 4998 of the longest thread"
        ])
        const stale = yield* timed(
          "current_state of stale facts",
          ok("relay_get_current_state", { limit: 4, status: "stale" })
        )
        expect(stale.facts.map((f) => f.content)).toEqual([
          "use redis streams",
          "use nats",
          "use kafka",
          `step ${depth - 1} of the longest thread`
        ])
        const found = yield* timed("search", ok("relay_search", { query: "kafka", status: "stale" }))
        expect(found.hits.map((h) => h.fact.id)).toEqual([forks[0]!.fact.id])
        const conflicts = yield* timed("detect_conflicts", ok("relay_detect_conflicts", {}))
        expect(conflicts.conflicts.map((c) => [c.parent.id, c.children_total])).toEqual([[leaf, 3]])
        const briefing = yield* timed("briefing", ok("relay_get_briefing", { my_name: "reader", limit: 5 }))
        expect(briefing.open_conflicts.map((c) => c.parent.id)).toEqual([leaf])
        const verify = Effect.flatMap(GraphDatabase, (db) => verifyStored(db))
        expect(yield* timed("check-db --verify", verify)).toMatchObject({
          facts: depth + 4,
          drifted: 0,
          examples: [],
          forksDrifted: 0
        })
        // Read in batches of 20,000 facts (graphShape.ts): this graph takes two.
        const clusters = yield* timed(
          "clusters",
          ok("relay_get_clusters", { limit: 1, facts_per_cluster: 1 })
        )
        expect([clusters.total_clusters, clusters.clusters[0]!.size]).toEqual([1, depth + 4])
        const important = yield* timed("important facts", ok("relay_get_important_facts", { limit: 2 }))
        // Step 4,999 has two children (step 5,000 and its revision): in a chain this long, rank gathers
        // there more than at the root, where what flows up has long been damped to the same level.
        expect(important.facts.map((f) => f.fact.content)).toEqual([
          "step 4999 of the longest thread",
          "step 4998 of the longest thread"
        ])

        const retracted = yield* timed(
          "retract the root",
          ok("relay_retract_fact", { fact_id: chain[0]!.id, reason: "the thread was wrong", retracted_by: "lead" })
        )
        expect(retracted.stale.length).toBeGreaterThan(0)
        const active = yield* timed("current_state after", ok("relay_get_current_state", { limit: 5 }))
        expect(active.facts).toEqual([])
        const leafNow = yield* ok("relay_get_context", { fact_id: forks[0]!.fact.id, limit: 2 })
        expect(leafNow.chain.map((f) => f.status)).toEqual(["stale", "stale"])
        // The conflict under a stale parent is still listed (staleness does not settle a fork).
        expect((yield* ok("relay_detect_conflicts", {})).conflicts.map((c) => c.parent.id)).toEqual([leaf])
        expect(yield* verify).toMatchObject({ facts: depth + 4, drifted: 0, examples: [], forksDrifted: 0 })

        // Step 1 still holds: it and steps 2-5,000 (and the better step 5,000) turn current; below the
        // lost decision stays stale. Then step 5,001 still holds too: the rest of the chain turns current.
        const top = yield* timed(
          "confirm step 1 (a 20,000-deep subtree, one decision in it)",
          ok("relay_confirm_fact", { fact_id: chain[1]!.id, reason: "the thread holds", confirmed_by: "lead" })
        )
        expect([top.fact.status, top.refreshed, top.already_confirmed]).toEqual(["active", 4_999, false])
        const current = yield* ok("relay_get_current_state", { limit: 2 })
        expect(current.facts.map((f) => f.content)).toEqual([
          "step 5000, said better",
          "step 4999 of the longest thread"
        ])
        const before = new Date(Date.parse(top.created_at) - 1).toISOString()
        const then = yield* ok("relay_get_current_state", { limit: 2, as_of: before })
        expect(then.facts).toEqual([])
        const rest = yield* timed(
          "confirm step 5,001",
          ok("relay_confirm_fact", { fact_id: chain[5_001]!.id, reason: "measured again", confirmed_by: "lead" })
        )
        expect(rest.refreshed).toBe(depth - 5_002 + 3)
        const leafThen = yield* ok("relay_get_context", { fact_id: forks[0]!.fact.id, limit: 2 })
        expect(leafThen.chain.map((f) => f.status)).toEqual(["active", "active"])
        expect(yield* verify).toMatchObject({ facts: depth + 4, drifted: 0, examples: [], forksDrifted: 0 })

        const results = yield* Fiber.join(saves)
        expect(results.filter((r) => r._tag === "Left")).toEqual([])
      }).pipe(Effect.scoped),
    180_000
  )
})
