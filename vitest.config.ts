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

export default defineConfig({
  test: {
    ...shared,
    include: ["test/**/*.test.ts"],
    exclude: ["test/**/*.slow.test.ts", "**/node_modules/**"],
    ...reporters("test-results.json")
  }
})
