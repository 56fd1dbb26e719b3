import { FastCheck as fc } from "effect"
import type { FinishOutcome } from "../../src/domain/tasks.js"

/**
 * What the generated task sequences share (test/tasks/model.test.ts, test/rules/taskTestLayer.test.ts):
 * three agents, a lease, waits either side of it, approvals, and the fencing token a claim or a
 * finish presents: the agent's own, or a stale one.
 */
export const agents = ["ann", "bob", "cyd"] as const
export const lease = 30_000

export const decideStep = fc.record({ kind: fc.constant("decide" as const), t: fc.nat(), approve: fc.boolean() })
export const waitStep = fc.record({
  kind: fc.constant("wait" as const),
  ms: fc.constantFrom(1_000, 29_999, 30_000, 45_000)
})

export const finishFields = {
  t: fc.nat(),
  a: fc.nat(2),
  token: fc.constantFrom("mine", "mine", "stale"),
  outcome: fc.constantFrom<FinishOutcome>("done", "failed", "failed", "released")
}

/** The token `by` last got for `id`, or a stale one, for a claim (`none`: no token). */
export const claimFence = (tokens: ReadonlyMap<string, number>, key: string, token: string): number | null => {
  const mine = tokens.get(key) ?? null
  return token === "none" ? null : token === "mine" ? mine ?? 1 : (mine ?? 1) - 1 || 99
}

/** The token `by` last got for `id`, or a stale one, for a finish. */
export const finishFence = (tokens: ReadonlyMap<string, number>, key: string, token: string): number => {
  const mine = tokens.get(key) ?? 1
  return token === "mine" ? mine : mine > 1 ? mine - 1 : mine + 5
}
