import { expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { schemaVersion } from "../../src/layers/database/schemaVersion.js"
import { recountRuns } from "../../src/layers/procedures/runCounts.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ownGraph, raw, stackOn } from "../support/ownGraph.js"
import { ok } from "../support/runTool.js"

/**
 * Schema 9 (issue 44): a graph at 8 is migrated on first use by recounting every procedure's runs
 * onto its node (runCounts.ts), and check-db --verify's recount names a procedure whose stored
 * counts its runs do not give.
 */
const Version = Schema.Struct({ v: Schema.Unknown })

it.live(
  "a schema 8 graph is brought to 9 with each procedure's counts recounted; verify names drift",
  () =>
    Effect.gen(function*() {
      expect(schemaVersion).toBeGreaterThanOrEqual(9)
      const graph = yield* ownGraph("procedures9")
      const id = yield* Effect.provide(
        Effect.gen(function*() {
          const p = yield* ok("relay_save_fact", {
            content: "restart the cache",
            steps: ["drain", "restart"],
            written_by: "a",
            session_id: "s"
          })
          for (const outcome of ["success", "failure", "success"]) {
            yield* ok("relay_record_run", { procedure_id: p.fact.id, outcome, ran_by: "b" })
          }
          const db = yield* GraphDatabase
          expect(yield* recountRuns(db, false)).toEqual({ procedures: 1, drifted: [] })
          return p.fact.id
        }),
        stackOn(graph)
      )
      // As a graph at 8 would hold it: counts not kept (a hand or an older writer), the version 8.
      for (
        const cypher of ["MATCH (p:Fact) REMOVE p.runs_ok, p.runs_failed", "MATCH (c:RelayClock) SET c.schema = 8"]
      ) {
        yield* Effect.promise(() => raw(graph, cypher))
      }
      const after = yield* Effect.provide(
        Effect.gen(function*() {
          const db = yield* GraphDatabase
          const version = yield* db.read("MATCH (c:RelayClock) RETURN c.schema AS v", {}, Version)
          const found = yield* ok("relay_find_procedure", { procedure_id: id })
          return { version: version[0]?.v, runs: found.procedures[0]!.runs, drift: yield* recountRuns(db, false) }
        }),
        stackOn(graph)
      )
      expect(after).toEqual({
        version: schemaVersion,
        runs: { success: 2, failure: 1, rate: 0.6 },
        drift: { procedures: 1, drifted: [] }
      })
      // Drift is named: a count changed by hand.
      yield* Effect.promise(() => raw(graph, "MATCH (p:Fact) WHERE p.kind = 'procedure' SET p.runs_ok = 7"))
      const drifted = yield* Effect.provide(
        Effect.flatMap(GraphDatabase, (db) => recountRuns(db, false)),
        stackOn(graph)
      )
      expect(drifted.drifted).toEqual([{ id, stored: [7, 1], counted: [2, 1] }])
    }).pipe(Effect.scoped),
  60_000
)
