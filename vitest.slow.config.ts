import { defineConfig } from "vitest/config"
import { reporters, shared } from "./vitest.config.js"

/**
 * `npm run test:slow`: the soak-type files (`*.slow.test.ts`, such as the Sentinel failover under
 * writers) that would take `npm test` past its 4 minutes on 2 cores. `.ci/run` runs them after
 * `npm test` and counts both.
 */
export default defineConfig({
  test: {
    ...shared,
    include: ["test/**/*.slow.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    passWithNoTests: true,
    ...reporters("test-results-slow.json")
  }
})
