import { defineConfig } from "vitest/config"

/** `npm run test:failover`: starts its own primary, replica and sentinels; not part of `npm test`. */
export default defineConfig({
  test: {
    include: ["test/failover/*.spec.ts"],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: "forks"
  }
})
