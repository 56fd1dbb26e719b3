import { Effect, Layer } from "effect"
import { inject } from "vitest"
import { FactStore } from "../../src/services/FactStore.js"
import { liveLayerOn, testGraphName } from "../support/testLayer.js"

/** Runs `effect` and prints how long it took, end to end, under `shape` (the machine is shared: a print, never a test). */
export const timedIn = (shape: string) => <A, E, R>(label: string, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = performance.now()
    const a = yield* effect
    console.log(`${shape}: ${label} ${(performance.now() - start).toFixed(0)} ms end to end (machine shared)`)
    return a
  })

/**
 * Another client saving `count` facts into a graph of its own while a hostile shape is read or
 * written: the fiber answers each save's outcome, and a test expects none to fail (one long
 * statement would stop every graph's writes).
 */
export const savesElsewhere = (count: number) =>
  Effect.gen(function*() {
    const other = yield* Layer.build(liveLayerOn(inject("falkordb"), testGraphName("other")))
    return yield* Effect.forkScoped(
      Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) =>
        Effect.flatMap(FactStore, (store) =>
          store.save({
            id: crypto.randomUUID(),
            content: `unrelated ${i}`,
            writtenBy: "other",
            sessionId: "o",
            parentId: null
          })).pipe(Effect.provide(other), Effect.either))
    )
  })
