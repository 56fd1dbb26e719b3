import { defineConfig } from "vitest/config"
import { reporters, shared } from "./vitest.config.js"

/**
 * `npm run test:slow`, second part (and `npm run test:failover`): the Sentinel failover under
 * writers, with nothing beside it. Its timing rests on the sentinels promoting a replica within
 * seconds, which a heavy file beside it delayed (the restarted, empty primary was still the master
 * when the test read it back: "empty key").
 */
export default defineConfig({
  test: {
    ...shared,
    include: ["test/failover/**/*.slow.test.ts"],
    provide: { propertyShare: 1 },
    testTimeout: 600_000,
    hookTimeout: 120_000,
    ...reporters("test-results-failover.json")
  }
})
