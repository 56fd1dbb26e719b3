import { defineConfig } from "vitest/config"
import { alone } from "./vitest.alone.config.js"
import { heavyProperties, reporters, shared } from "./vitest.config.js"

/**
 * `npm run test:slow`, first part: the soak-type files (`*.slow.test.ts`) that would take `npm test`
 * past its 3 minutes on 2 cores, and the heavy properties with all their runs, two files at a time
 * as in `npm test`. What needs the database to itself is the second part (vitest.alone.config.ts).
 * `.ci/run` runs both after `npm test` and counts all three.
 */
export default defineConfig({
  test: {
    ...shared,
    include: ["test/**/*.slow.test.ts", ...heavyProperties],
    exclude: [...alone, "**/node_modules/**"],
    provide: { propertyShare: 1 },
    testTimeout: 600_000,
    hookTimeout: 120_000,
    passWithNoTests: true,
    ...reporters("test-results-slow.json")
  }
})
