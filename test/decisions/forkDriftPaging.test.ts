import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { schemaVersion } from "../../src/layers/database/schemaVersion.js"
import { forkDrift, rewindForks, verifyForkBatch } from "../../src/layers/factStore/forkWindow.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ownGraph, raw, stackOn } from "../support/ownGraph.js"

/**
 * check-db --verify reads the fork windows `verifyForkBatch` ForkMarks a statement (10,000 took
 * past the statement limit at 1M facts): every fork is still read, across batches, and a window
 * changed by hand in the last batch is found.
 */
it.live(
  "verify reads every fork window across its batches and finds one changed in the last",
  () =>
    Effect.gen(function*() {
      const graph = yield* ownGraph("fork_drift_paging")
      const forks = verifyForkBatch + 37
      // Each parent: two children that differ, and its mark (as a save leaves a fork).
      yield* Effect.promise(() =>
        raw(
          graph,
          "UNWIND range(1, $n) AS i CREATE (:ForkMark)-[:MARKS]->(p:Fact {id: 'p' + toString(i), created_at: i}) " +
            "CREATE (:Fact {id: 'a' + toString(i), norm: 'use a', content: 'use a', created_at: i + 1})-[:BUILDS_ON]->(p) " +
            "CREATE (:Fact {id: 'b' + toString(i), norm: 'use b', content: 'use b', created_at: i + 2})-[:BUILDS_ON]->(p)",
          { n: forks }
        )
      )
      // Written as this version writes: no migration of a graph without its schema mark runs first.
      yield* Effect.promise(() => raw(graph, "MERGE (c:RelayClock {id: 0}) SET c.schema = $v", { v: schemaVersion }))
      const found = yield* Effect.provide(
        Effect.gen(function*() {
          const db = yield* GraphDatabase
          yield* rewindForks(db)
          const clean = yield* forkDrift(db)
          // The newest mark's window says closed, though its pair is open: drift in the last batch.
          yield* db.write(`MATCH (:ForkMark)-[m:MARKS]->(:Fact {id: $id}) SET m.opened = 9e15`, { id: `p${forks}` })
          return { clean, changed: yield* forkDrift(db) }
        }),
        stackOn(graph)
      )
      expect(found.clean).toEqual({ forks, drifted: [] })
      expect(found.changed.forks).toBe(forks)
      expect(found.changed.drifted.map((d) => d.id)).toEqual([`p${forks}`])
    }).pipe(Effect.scoped),
  60_000
)
