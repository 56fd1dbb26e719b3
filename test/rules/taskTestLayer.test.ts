import { expect, layer } from "@effect/vitest"
import { Effect, Either, FastCheck as fc, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import type { Task, TaskPlace, TaskStatus } from "../../src/domain/tasks.js"
import { taskStatuses } from "../../src/domain/tasks.js"
import { makeTaskStoreTest } from "../../src/layers/tasks/TaskStoreTest.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { type ClaimRequest, TaskStore, type TaskStoreShape } from "../../src/services/TaskStore.js"
import { propertyRuns } from "../support/propertyRuns.js"
import { onFreshTestClock, relayTestLayer } from "../support/testLayer.js"
import { agents, claimFence, decideStep, finishFence, finishFields, lease, waitStep } from "../tasks/steps.js"

/**
 * The task Test layer (layers/tasks/TaskStoreTest.ts, the task model in a Ref) against the live
 * TaskStore on a real FalkorDB: the same generated posts (and reposts of an id), approvals, claims by
 * id and from the queue (with fresh, stale and retried request ids), heartbeats, finishes of every
 * outcome and lease expiries on the TestClock go to both; every reply and refusal, and every page
 * of the board under each filter read through its cursor, must be the same.
 */

const step = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("post" as const),
      approval: fc.boolean(),
      max: fc.integer({ min: 1, max: 3 }),
      title: fc.constantFrom("fix the login test", "bump the driver"),
      // Now and then the id of an earlier post again: the same text answers it, other text is refused.
      repost: fc.option(fc.nat(), { nil: null, freq: 4 }),
      dt: fc.constantFrom(0, 0, 1, 7)
    })
  },
  { weight: 1, arbitrary: decideStep },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("claim" as const),
      t: fc.nat(),
      a: fc.nat(2),
      token: fc.constantFrom("none", "none", "mine", "stale"),
      again: fc.constantFrom("no", "no", "retry", "elsewhere")
    })
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("next" as const),
      a: fc.nat(2),
      again: fc.constantFrom("no", "no", "retry")
    })
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("finish" as const),
      ...finishFields,
      note: fc.constantFrom(null, "tried the retry loop")
    })
  },
  { weight: 2, arbitrary: waitStep }
)

type Step = typeof step extends fc.Arbitrary<infer A> ? A : never

type ListPage = Effect.Effect.Success<ReturnType<TaskStoreShape["list"]>>

const outcome = <A, E extends { readonly _tag: string; readonly message: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? { failed: e.left._tag, message: e.left.message } : e.right

const runScenario = (steps: ReadonlyArray<Step>) =>
  Effect.gen(function*() {
    const live = yield* TaskStore
    const db = yield* GraphDatabase
    yield* db.write("MATCH (n) DETACH DELETE n")
    yield* TestClock.setTime(Date.parse("2026-05-01T00:00:00.000Z"))
    const test = yield* makeTaskStoreTest

    const both = <A, E extends { readonly _tag: string; readonly message: string }>(
      what: string,
      call: (s: TaskStoreShape) => Effect.Effect<A, E>
    ) =>
      Effect.gen(function*() {
        const l = yield* Effect.either(call(live))
        const t = yield* Effect.either(call(test))
        expect(outcome(t), what).toEqual(outcome(l))
        return l
      })

    /** Every page of the board under a filter, `size` a page, each through the cursor its last task gives. */
    const allPages = (status: TaskStatus | null, claimedBy: string | null, size: number) =>
      both(`pages of ${status} held by ${claimedBy}`, (s) =>
        Effect.gen(function*() {
          const out: Array<unknown> = []
          let after: TaskPlace | null = null
          for (let n = 0; n < 100; n++) {
            const page: ListPage = yield* s.list({ status, claimedBy, thread: null, limit: size, after })
            out.push(page)
            const last: Task | undefined = page.tasks.at(-1)
            if (!page.more || last === undefined) return out
            after = { createdAt: Date.parse(last.created_at), id: last.id }
          }
          return yield* Effect.dieMessage("pages never ended")
        }))

    const ids: Array<string> = []
    const posted = new Map<string, { title: string; approval: boolean; max: number }>()
    const ghost = randomUUID()
    const pick = (n: number) => [...ids, ghost][n % (ids.length + 1)]!
    // The fencing token each agent last got for each task (what it would present).
    const tokens = new Map<string, number>()
    let lastClaim: ClaimRequest | null = null

    for (const s of steps) {
      switch (s.kind) {
        case "wait":
          yield* TestClock.adjust(s.ms)
          break
        case "post": {
          yield* TestClock.adjust(s.dt)
          const earlier = s.repost === null || ids.length === 0 ? null : ids[s.repost % ids.length]!
          const id = earlier ?? randomUUID()
          const first = posted.get(id)
          // A repost keeps the first text half the time (a retry), else changes the title.
          const title = first !== undefined && s.title === "fix the login test" ? first.title : s.title
          const approval = first?.approval ?? s.approval
          const max = first?.max ?? s.max
          const got = yield* both(`post ${id}`, (store) =>
            store.post({
              id,
              title,
              detail: null,
              writtenBy: "zed",
              about: [],
              needsApproval: approval,
              maxAttempts: max
            }))
          if (Either.isRight(got) && first === undefined) {
            ids.push(id)
            posted.set(id, { title, approval, max })
          }
          break
        }
        case "decide": {
          const id = pick(s.t)
          yield* both(`decide ${id} ${s.approve}`, (store) => store.decide(id, s.approve, "person"))
          break
        }
        case "claim": {
          const id = pick(s.t)
          const by = agents[s.a]!
          const fence = claimFence(tokens, `${by}/${id}`, s.token)
          // A retry sends the last claim of a named task again whole; `elsewhere` reuses its request id
          // on this task. Not a queue claim's: a retried queue claim may leave its request id on two
          // tasks, and which of them the live store reads then is not defined.
          const earlier = lastClaim !== null && lastClaim.taskId !== null ? lastClaim : null
          const request: ClaimRequest = s.again === "retry" && earlier !== null
            ? earlier
            : {
              claimedBy: by,
              taskId: id,
              fence,
              leaseMillis: lease,
              claimId: s.again === "elsewhere" && earlier !== null ? earlier.claimId : randomUUID()
            }
          const got = yield* both(`claim ${JSON.stringify(request)}`, (store) => store.claim(request))
          lastClaim = request
          if (Either.isRight(got) && got.right !== null) {
            tokens.set(`${request.claimedBy}/${got.right.task.id}`, got.right.fence)
          }
          break
        }
        case "next": {
          const request: ClaimRequest = s.again === "retry" && lastClaim !== null && lastClaim.taskId === null
            ? lastClaim
            : { claimedBy: agents[s.a]!, taskId: null, fence: null, leaseMillis: lease, claimId: randomUUID() }
          const got = yield* both(`queue claim ${JSON.stringify(request)}`, (store) => store.claim(request))
          lastClaim = request
          if (Either.isRight(got) && got.right !== null) {
            tokens.set(`${request.claimedBy}/${got.right.task.id}`, got.right.fence)
          }
          break
        }
        case "finish": {
          const id = pick(s.t)
          const by = agents[s.a]!
          const fence = finishFence(tokens, `${by}/${id}`, s.token)
          yield* both(`finish ${id} ${s.outcome}`, (store) =>
            store.finish({ taskId: id, claimedBy: by, fence, outcome: s.outcome, note: s.note }))
          break
        }
      }
      yield* allPages(null, null, 3)
    }

    // At the end every filter, through every page.
    for (const status of [null, ...taskStatuses]) {
      for (const holder of [null, ...agents]) {
        yield* allPages(status, holder, 2)
      }
    }
  })

layer(relayTestLayer("task_test_layer"))("the task Test layer answers as the live TaskStore", (it) => {
  it.effect.prop(
    "posts, approvals, claims, heartbeats, retries, finishes, expiries; pages of every filter",
    [fc.array(step, { minLength: 1, maxLength: 24 })],
    ([steps]) => onFreshTestClock(runScenario(steps)),
    { timeout: 300_000, fastCheck: { numRuns: propertyRuns(24) } }
  )

  // Random runs seldom post three tasks in one millisecond: such tasks page by id, highest first.
  it.effect("tasks posted in the same millisecond", () =>
    onFreshTestClock(runScenario(
      [0, 1, 2].map(() => ({
        kind: "post" as const,
        approval: false,
        max: 1,
        title: "fix the login test" as const,
        repost: null,
        dt: 0 as const
      }))
    )))
})
