import { describe, effect, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { restoreEffectIt } from "../support/pristineEffectIt.js"

/**
 * The workaround of test/support/pristineEffectIt.ts is still needed, and works: a `layer()` (this
 * one has no test services, as test/embedded's) leaves its own tester on the shared `it`, and
 * restoreEffectIt puts the package's back. If @effect/vitest stops mutating `it`, the first check
 * fails: the workaround can go.
 */
layer(Layer.empty, { excludeTestServices: true })("a layer without test services", (inner) => {
  inner.effect("runs its tests on the live Clock", () => Effect.void)
})

describe("@effect/vitest's shared it", () => {
  it("a layer() replaced it.effect; restoreEffectIt puts the package's own back", () => {
    expect(it.effect).not.toBe(effect)
    restoreEffectIt()
    expect(it.effect).toBe(effect)
  })
})
