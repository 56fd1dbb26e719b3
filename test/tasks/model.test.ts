import { expect, layer } from "@effect/vitest"
import { Effect, Exit, FastCheck as fc, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import * as M from "../../src/domain/taskModel.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { TaskStore } from "../../src/services/TaskStore.js"
import { propertyRuns } from "../support/propertyRuns.js"
import { onFreshTestClock, relayTestLayer } from "../support/testLayer.js"
import { agents, claimFence, decideStep, finishFence, finishFields, lease, waitStep } from "./steps.js"

/**
 * The task Cypher against the pure state machine (src/domain/taskModel.ts): random posts, approvals,
 * claims (named and from the queue), heartbeats with current and stale fencing tokens, finishes of
 * every outcome and lease expiries on the TestClock; after every step the refusal (or its absence)
 * and the whole board (status as shown, holder, attempts) and its totals must be what the model says.
 */

const stepArb = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("post" as const),
      approval: fc.boolean(),
      max: fc.integer({ min: 1, max: 3 })
    })
  },
  { weight: 1, arbitrary: decideStep },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("claim" as const),
      t: fc.nat(),
      a: fc.nat(2),
      token: fc.constantFrom("none", "mine", "stale")
    })
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("next" as const), a: fc.nat(2) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("finish" as const), ...finishFields })
  },
  { weight: 2, arbitrary: waitStep }
)

const refusalOf = (exit: Exit.Exit<unknown, { readonly _tag: string }>): string | null => {
  if (Exit.isSuccess(exit)) return null
  const failure = exit.cause._tag === "Fail" ? exit.cause.error._tag : "defect"
  return failure
}

const tagOf: Record<M.Refusal["_tag"], string> = {
  not_found: "TaskNotFound",
  already_claimed: "AlreadyClaimed",
  lease_lost: "LeaseLost",
  not_claimable: "InvalidInput",
  not_pending: "InvalidInput"
}

const expected = <A>(o: M.Outcome<A>): string | null => "refused" in o ? tagOf[o.refused._tag] : null

const run = (steps: ReadonlyArray<typeof stepArb extends fc.Arbitrary<infer S> ? S : never>) =>
  Effect.gen(function*() {
    const store = yield* TaskStore
    const db = yield* GraphDatabase
    yield* db.write("MATCH (n) DETACH DELETE n")
    yield* TestClock.setTime(Date.parse("2026-05-01T00:00:00.000Z"))
    const board = M.emptyBoard()
    const ids: Array<string> = []
    // The fencing token each agent last got for each task (what it would present).
    const tokens = new Map<string, number>()
    const pick = (n: number) =>
      ids.length === 0 ? randomUUID() : n % (ids.length + 1) === ids.length ? randomUUID() : ids[n % (ids.length + 1)]!

    for (const s of steps) {
      const now = yield* TestClock.currentTimeMillis
      switch (s.kind) {
        case "wait":
          yield* TestClock.adjust(s.ms)
          break
        case "post": {
          const id = randomUUID()
          ids.push(id)
          M.post(board, id, s.approval, s.max)
          yield* store.post({
            id,
            title: "t",
            detail: null,
            writtenBy: "ann",
            about: [],
            needsApproval: s.approval,
            maxAttempts: s.max
          })
          break
        }
        case "decide": {
          const id = pick(s.t)
          const want = M.decide(board, id, s.approve)
          const exit = yield* Effect.exit(store.decide(id, s.approve, "person"))
          expect(refusalOf(exit), JSON.stringify(s)).toBe(expected(want))
          break
        }
        case "claim": {
          const id = pick(s.t)
          const by = agents[s.a]!
          const fence = claimFence(tokens, `${by}/${id}`, s.token)
          const want = M.claimTask(board, id, by, fence, now, lease)
          const exit = yield* Effect.exit(
            store.claim({ claimedBy: by, taskId: id, fence, leaseMillis: lease, claimId: randomUUID() })
          )
          expect(refusalOf(exit), JSON.stringify(s)).toBe(expected(want))
          if (Exit.isSuccess(exit) && "ok" in want) {
            expect(exit.value?.fence).toBe(want.ok.fence)
            expect(exit.value?.leaseUntil).toBe(want.ok.leaseUntil)
            expect(exit.value?.heartbeat).toBe(want.ok.heartbeat)
            tokens.set(`${by}/${id}`, want.ok.fence)
          }
          break
        }
        case "next": {
          const by = agents[s.a]!
          const candidates = M.queueCandidates(board, now).map((t) => t.id)
          const got = yield* store.claim({
            claimedBy: by,
            taskId: null,
            fence: null,
            leaseMillis: lease,
            claimId: randomUUID()
          })
          if (candidates.length === 0) {
            expect(got).toBeNull()
          } else {
            expect(candidates).toContain(got?.task.id)
            const want = M.claimNext(board, got!.task.id, by, now, lease)!
            expect(got!.fence).toBe(want.fence)
            tokens.set(`${by}/${want.task.id}`, want.fence)
          }
          break
        }
        case "finish": {
          const id = pick(s.t)
          const by = agents[s.a]!
          const fence = finishFence(tokens, `${by}/${id}`, s.token)
          const want = M.finishTask(board, id, by, fence, s.outcome)
          const exit = yield* Effect.exit(
            store.finish({
              taskId: id,
              claimedBy: by,
              fence,
              outcome: s.outcome,
              note: s.outcome === "failed" ? "broke" : null
            })
          )
          expect(refusalOf(exit), JSON.stringify(s)).toBe(expected(want))
          if (Exit.isSuccess(exit) && "ok" in want) expect(exit.value.repeat).toBe(want.ok.repeat)
          break
        }
      }
      // The whole board agrees after every step.
      const at = yield* TestClock.currentTimeMillis
      const listed = yield* store.list({ status: null, claimedBy: null, thread: null, limit: 100, after: null })
      const got = Object.fromEntries(listed.tasks.map((t) => [t.id, [t.status, t.claimed_by, t.attempts]]))
      const want = Object.fromEntries(
        [...board.tasks.values()].map((t) => [t.id, [M.shownStatus(t, at), t.holder, t.attempts]])
      )
      expect(got, JSON.stringify(s)).toEqual(want)
      // The totals the counters kept on write give (taskCounts.ts) are the model's.
      expect(listed.totals, JSON.stringify(s)).toEqual(M.totals(board, at))
    }
  })

layer(relayTestLayer("tasks_model"))("TaskStore agrees with the task state machine", (it) => {
  it.effect.prop(
    "claims, heartbeats, finishes and lease expiry",
    [fc.array(stepArb, { minLength: 4, maxLength: 30 })],
    ([steps]) => onFreshTestClock(run(steps)),
    { timeout: 120_000, fastCheck: { numRuns: propertyRuns(40) } }
  )

  // Random runs seldom hold several expired claims at once: the queue takes the lease that ran out
  // first, then of two equal leases the lower id (what a replayed claim must pick again).
  it.effect("the queue takes the oldest expired lease, then the lowest id", () =>
    onFreshTestClock(run([
      ...[1, 2, 3, 4].map(() => ({ kind: "post" as const, approval: false, max: 3 })),
      { kind: "claim", t: 0, a: 0, token: "none" },
      { kind: "wait", ms: 1_000 },
      { kind: "claim", t: 1, a: 1, token: "none" },
      { kind: "claim", t: 2, a: 2, token: "none" },
      { kind: "wait", ms: 45_000 },
      { kind: "next", a: 0 },
      { kind: "next", a: 1 },
      { kind: "next", a: 2 }
    ])))
})
