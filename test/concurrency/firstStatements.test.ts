import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { clockBind } from "../../src/layers/database/clock.js"
import { ensureSchema } from "../../src/layers/database/graphIndexes.js"
import { FactStore } from "../../src/services/FactStore.js"
import { connectAdmin, runDatabase } from "../support/proof.js"
import { rawDatabase } from "../support/rawDatabase.js"
import { liveLayerOn, testGraphName } from "../support/testLayer.js"

const racers = 4
const rounds = 5

/** Every label a statement of the memory's stores MERGEs (the token and OAuth stores keep their own graph). */
const mergedLabels = (() => {
  const dir = join(import.meta.dirname, "../../src/layers")
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.startsWith("tokens"))
  const labels = files.flatMap((f) =>
    [...readFileSync(join(dir, f), "utf8").matchAll(/MERGE \(\w+:(\w+)/g)].map((m) => m[1]!)
  )
  return [...new Set(labels)].sort()
})()

const clients = Effect.forEach(Array.from({ length: racers }), () => rawDatabase)

const saveBy = (store: FactStore["Type"], writer: string) =>
  store.save({
    id: randomUUID(),
    content: `first words of ${writer}`,
    writtenBy: writer,
    sessionId: writer,
    parentId: null
  })

/**
 * Assistants launched together (a desktop's login starts them all) reach a new memory at once: each
 * Relay makes the graph's schema, then their first writes race. FalkorDB 4.16 plans a MERGE on a label
 * the graph does not have yet as matching nothing, so each racer made its own clock node, and from
 * then on every save bound both clocks and wrote its fact twice: refused by the fact id's unique
 * constraint, every save answered `unavailable` until the process restarted.
 */
describe("Relays that start on a new memory at once", () => {
  it.scopedLive("find every label their statements MERGE made by the schema check", () =>
    Effect.gen(function*() {
      expect(mergedLabels).toEqual(expect.arrayContaining(["RelayClock", "RankHead", "Agent", "Term"]))
      const graph = testGraphName("labels")
      const [db] = yield* clients
      yield* ensureSchema(db!.selectGraph(graph))
      const labels = yield* Effect.promise(() => db!.selectGraph(graph).roQuery<{ label: string }>("CALL db.labels()"))
      expect(mergedLabels.filter((l) => !(labels.data ?? []).some((r) => r.label === l))).toEqual([])
      yield* Effect.promise(() => db!.selectGraph(graph).delete())
    }))

  it.scopedLive(`bind one clock when their first writes race, and every save after lands once (${rounds} rounds)`, () =>
    Effect.gen(function*() {
      const admin = yield* Effect.acquireRelease(
        Effect.promise(() => connectAdmin()),
        (a) => Effect.promise(() => a.close())
      )
      const racing = yield* clients
      for (let round = 0; round < rounds; round++) {
        const graph = testGraphName(`first${round}`)
        yield* ensureSchema(racing[0]!.selectGraph(graph))
        // The clock every stamping write binds, sent by each racer at the same moment.
        yield* Effect.forEach(
          racing,
          (db) => Effect.promise(() => db.selectGraph(graph).query(`${clockBind([])}RETURN 1 AS one`)),
          { concurrency: "unbounded" }
        )
        const clocks = yield* Effect.promise(() =>
          admin.query<{ n: number }>(graph, "MATCH (c:RelayClock) RETURN count(c) AS n")
        )
        expect(clocks).toEqual([{ n: 1 }])
        const store = Context.get(yield* Layer.build(liveLayerOn(runDatabase(), graph)), FactStore)
        const saved = yield* Effect.forEach(
          Array.from({ length: racers }),
          (_, i) => Effect.either(saveBy(store, `racer${i}`))
        )
        expect(saved.filter((e) => e._tag === "Left")).toEqual([])
        const counts = yield* Effect.promise(() =>
          admin.query<{ clocks: number; facts: number }>(
            graph,
            "MATCH (c:RelayClock) WITH count(c) AS clocks OPTIONAL MATCH (f:Fact) RETURN clocks, count(f) AS facts"
          )
        )
        expect(counts).toEqual([{ clocks: 1, facts: racers }])
      }
    }))
})
