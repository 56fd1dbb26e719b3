import { defineConfig } from "vitest/config"
import { reporters, shared } from "./vitest.config.js"

/**
 * `npm run test:slow`: the soak-type files (`*.slow.test.ts`) that would take `npm test` past its
 * 4 minutes on 2 cores. `.ci/run` runs them after `npm test`.
 */
export default defineConfig({
  test: {
    ...shared,
    include: ["test/**/*.slow.test.ts"],
    passWithNoTests: true,
    ...reporters("test-results-slow.json")
  }
})
