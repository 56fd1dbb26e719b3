import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { relayStack } from "../../src/layers/assembly/stacks.js"
import { statement } from "../../src/layers/database/decodeRows.js"
import type { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ok } from "../support/runTool.js"
import { droppedOnRelease, testGraphName, testSettings } from "../support/testLayer.js"

/**
 * Issue 42: a page of clusters costs what its statements' round trips cost (bench/levels.ts replays
 * them on the bare client). Counted on the real statements: once the size floor is learned, a page
 * is its one statement with the count beside it (one round trip), and the exact conflicts of its
 * forks after (a second), whatever the page's shape.
 */
const sent = { statements: 0, trips: 0, inflight: 0 }
const counting = (run: GraphDatabase["Type"]["read"]): GraphDatabase["Type"]["read"] =>
  statement((cypher, params, row) =>
    Effect.suspend(() => {
      if (sent.inflight === 0) sent.trips++
      sent.inflight++
      sent.statements++
      return row === undefined ? run(cypher, params) : run(cypher, params ?? {}, row)
    }).pipe(Effect.ensuring(Effect.sync(() => sent.inflight--)))
  )
const counted = (db: GraphDatabase["Type"]): GraphDatabase["Type"] => ({
  ...db,
  read: counting(db.read),
  write: counting(db.write)
})
const stack = relayStack(testSettings(testGraphName("cluster_statements")), { wrap: counted })

const save = (content: string, parent?: string) =>
  Effect.map(
    ok("relay_save_fact", {
      content,
      written_by: "w",
      session_id: "s",
      ...(parent === undefined ? {} : { parent_fact_id: parent })
    }),
    (r) => r.fact.id
  )

const counts = <A, E, R>(read: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    Object.assign(sent, { statements: 0, trips: 0 })
    const answer = yield* read
    return { answer, statements: sent.statements, trips: sent.trips }
  })

layer(droppedOnRelease(stack))("a page of clusters' statements", (it) => {
  it.effect("one round trip for the page and its count, one for its forks' conflicts", () =>
    Effect.gen(function*() {
      const a = yield* save("thread A: which database")
      for (const c of ["use postgres", "use sqlite", "use mysql"]) yield* save(c, a)
      const b = yield* save("thread B: deploys on Fridays")
      yield* save("deploys need a second reviewer", b)
      yield* save("thread C: caching")
      yield* save("thread D: uploads go to a bucket")
      for (const shape of [{ limit: 3, facts_per_cluster: 5 }, { limit: 3, facts_per_cluster: 1 }]) {
        // The first call learns the size floor (a full first page), as a process does once.
        const first = yield* ok("relay_get_clusters", shape)
        const page = yield* counts(ok("relay_get_clusters", shape))
        expect(page.answer).toEqual(first)
        expect(page.answer.clusters.map((c) => [c.size, c.open_conflicts, c.facts.length])).toEqual([
          [4, 1, Math.min(4, shape.facts_per_cluster)],
          [2, 0, Math.min(2, shape.facts_per_cluster)],
          [1, 0, 1]
        ])
        expect(page.answer.clusters[0]!.facts[0]!.content).toBe("thread A: which database")
        expect({ statements: page.statements, trips: page.trips }).toEqual({ statements: 3, trips: 2 })
      }
      // The next page goes on from the cursor's place, no count of the clusters before it needed.
      const lone = yield* ok("relay_get_clusters", { limit: 2, facts_per_cluster: 2 })
      const next = yield* ok("relay_get_clusters", { limit: 2, cursor: lone.next_cursor!, facts_per_cluster: 2 })
      expect(next.clusters.map((c) => [c.id, c.label])).toEqual([
        [3, "thread C: caching"],
        [4, "thread D: uploads go to a bucket"]
      ])
    }))
})
