import { defineConfig } from "vitest/config"

/**
 * `npm test`. Two files at a time (a file mostly waits on FalkorDB or on a process it started, so
 * two keep 2 cores busy), in worker processes that keep the modules they imported from one file to
 * the next (`isolate: false`): effect, the SDK and Relay's modules are loaded once per worker, not
 * once per file. README, "Tests", says what that asks of a test file. `*.slow.test.ts` files are
 * `npm run test:slow` (vitest.slow.config.ts).
 */
export const shared = {
  globalSetup: ["test/support/globalSetup.ts"],
  // Before each file: the shared `it` of @effect/vitest as the package made it (pristineEffectIt.ts).
  setupFiles: ["test/support/pristineEffectIt.ts"],
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: "forks" as const,
  isolate: false,
  maxWorkers: 2,
  minWorkers: 1
}

/** On CI also a JSON report, from which .ci/run prints the plain "N passed, N failed" line. */
export const reporters = (json: string) => ({
  reporters: process.env.CI === "true" ? ["default", "json"] : ["default"],
  outputFile: { json }
})

/**
 * The properties against the real database (test/support/propertyRuns.ts): `npm test` makes a
 * quarter of their runs, `npm run test:slow` all of them.
 */
export const heavyProperties = [
  "test/rules/properties.test.ts",
  "test/rules/testLayer.test.ts",
  "test/rules/taskTestLayer.test.ts",
  "test/rules/stored.test.ts",
  "test/rules/thread.test.ts",
  "test/rules/severalParents.test.ts",
  "test/tasks/model.test.ts",
  "test/search/hostile-queries.test.ts",
  "test/transfer/roundTrip.test.ts"
]

export default defineConfig({
  test: {
    ...shared,
    include: ["test/**/*.test.ts"],
    exclude: ["test/**/*.slow.test.ts", "**/node_modules/**"],
    provide: { propertyShare: 0.25 },
    ...reporters("test-results.json")
  }
})
