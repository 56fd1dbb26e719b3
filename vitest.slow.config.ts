import { defineConfig } from "vitest/config"
import { heavyProperties, reporters, shared } from "./vitest.config.js"

/**
 * `npm run test:slow`: the soak-type files (`*.slow.test.ts`, such as the Sentinel failover under
 * writers) that would take `npm test` past its 3 minutes on 2 cores, and the heavy properties with
 * all their runs. `.ci/run` runs them after
 * `npm test` and counts both. One file at a time: the failover's timing rests on the sentinels
 * promoting a replica within seconds, which the 200,000-dependent file's load beside it delayed
 * (the restarted, empty primary was still the master when the test read it back: "empty key").
 */
export default defineConfig({
  test: {
    ...shared,
    include: ["test/**/*.slow.test.ts", ...heavyProperties],
    provide: { propertyShare: 1 },
    testTimeout: 600_000,
    hookTimeout: 120_000,
    passWithNoTests: true,
    fileParallelism: false,
    ...reporters("test-results-slow.json")
  }
})
