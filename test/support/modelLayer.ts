import { Layer } from "effect"
import { FactStoreTest } from "../../src/layers/factStore/FactStoreTest.js"
import { TaskStoreTest } from "../../src/layers/tasks/TaskStoreTest.js"
import { makeRateLimiter, RateLimiter } from "../../src/services/RateLimiter.js"
import { SecretScanner } from "../../src/services/SecretScanner.js"

/**
 * What a tool call needs, with no database: the FactStore on the pure model (FactStoreTest, held to
 * the live store by test/rules/testLayer.test.ts), the TaskStore on the task model (TaskStoreTest,
 * held by test/rules/taskTestLayer.test.ts; what that model leaves out dies), and the real
 * rate limiter (generous) and secret scanner. For tests of tools, rendering, paging and policies;
 * the store's own statements are tested on FalkorDB (relayTestLayer).
 */
export const modelTestLayer = Layer.mergeAll(
  FactStoreTest,
  TaskStoreTest,
  Layer.effect(RateLimiter, makeRateLimiter(100_000)),
  SecretScanner.Default
)
