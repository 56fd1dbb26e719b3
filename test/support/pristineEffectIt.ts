import { effect, flakyTest, it, layer, live, prop, scoped, scopedLive } from "@effect/vitest"

/**
 * @effect/vitest 0.30's `layer()` hands its tests an `it` made by Object.assign onto the shared
 * `it` (vitest's own), so after any file's `layer(L)` the imported `it.effect` provides L's runtime.
 * With `isolate: false` a worker keeps that `it` for its next files: after
 * `layer(NodeContext.layer, { excludeTestServices: true })` (test/embedded) a later file's
 * `it.effect` ran on the live Clock ("testClock.adjust is not a function"). Run before every test
 * file (vitest.config.ts, setupFiles), this puts the package's own testers back.
 */
export const restoreEffectIt = () => Object.assign(it, { effect, scoped, live, scopedLive, flakyTest, layer, prop })

restoreEffectIt()
