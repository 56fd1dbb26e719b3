import { defineConfig } from "vitest/config"
import { reporters, shared } from "./vitest.config.js"

/**
 * `npm run test:slow`, second part: the files that must have the database to themselves, one at a
 * time. The Sentinel failover's timing rests on the sentinels promoting a replica within seconds,
 * which a heavy file beside it delayed (the restarted, empty primary was still the master when the
 * test read it back: "empty key"); the retraction over 200,000 dependents and the 50,000-fact import
 * hold statements near the server's timeout, which a file beside them pushed past it. The cluster's
 * failover (nine servers, a kill, an election) is timed the same way.
 */
export const alone = [
  "test/cluster/cluster.slow.test.ts",
  "test/failover/failover.slow.test.ts",
  "test/hostile/dependents.slow.test.ts",
  "test/transfer/importCli.slow.test.ts"
]

export default defineConfig({
  test: {
    ...shared,
    include: alone,
    provide: { propertyShare: 1 },
    testTimeout: 600_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    ...reporters("test-results-alone.json")
  }
})
