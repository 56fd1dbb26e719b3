import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // On CI also a JSON report, from which .ci/run prints the plain "N passed, N failed" line.
    reporters: process.env.CI === "true" ? ["default", "json"] : ["default"],
    outputFile: { json: "test-results.json" }
  }
})
