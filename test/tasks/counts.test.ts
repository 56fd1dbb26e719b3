import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { verifyStored } from "../../src/layers/factStore/verifyStored.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { TaskStore } from "../../src/services/TaskStore.js"
import { ownGraph, raw, stackOn } from "../support/ownGraph.js"

/**
 * The board's totals are counters kept on write (layers/tasks/taskCounts.ts): a graph from before
 * them (schema 4) gets them from a recount on first use, and `check-db --verify` finds a counter
 * changed by hand. (The model test holds the counters to the state machine after every step.)
 */

/** A board in every stored status: 3 open, 1 claimed, 1 done, 1 failed, 1 awaiting approval, 1 rejected. */
const buildBoard = Effect.gen(function*() {
  const tasks = yield* TaskStore
  const post = (needsApproval = false, maxAttempts = 3) =>
    Effect.map(
      tasks.post({
        id: randomUUID(),
        title: "t",
        detail: null,
        writtenBy: "zed",
        about: [],
        needsApproval,
        maxAttempts
      }),
      (p) => p.task.id
    )
  const claim = (id: string) =>
    Effect.map(
      tasks.claim({ claimedBy: "ann", taskId: id, fence: null, leaseMillis: 600_000, claimId: randomUUID() }),
      (c) => c!.fence
    )
  const ids = yield* Effect.all(Array.from({ length: 5 }, () => post()))
  const once = yield* post(false, 1)
  yield* tasks.decide(yield* post(true), false, "person")
  yield* post(true)
  yield* claim(ids[0]!)
  yield* tasks.finish({ taskId: ids[1]!, claimedBy: "ann", fence: yield* claim(ids[1]!), outcome: "done", note: null })
  yield* tasks.finish({ taskId: once, claimedBy: "ann", fence: yield* claim(once), outcome: "failed", note: "no" })
})

const board = Effect.flatMap(
  TaskStore,
  (tasks) =>
    Effect.map(tasks.list({ status: null, claimedBy: null, thread: null, limit: 20, after: null }), (l) => l.totals)
)
const verified = Effect.flatMap(GraphDatabase, (db) => verifyStored(db))
const expected = { open: 3, claimed: 1, done: 1, failed: 1, awaiting_approval: 1, rejected: 1 }

it.live(
  "a graph from before the counters gets them from a recount, and verify finds none off",
  () =>
    Effect.gen(function*() {
      const graph = yield* ownGraph("task_counts_migrate")
      expect(yield* Effect.provide(Effect.zipRight(buildBoard, board), stackOn(graph))).toEqual(expected)
      // As a schema-4 Relay left it: the last place on the queue node, no TALLY edge, no counters.
      yield* Effect.promise(() => raw(graph, "MATCH (q:TaskQueue)-[qt:TALLY]->(q) SET q.tail = qt.tail DELETE qt"))
      yield* Effect.promise(() => raw(graph, "MATCH (c:RelayClock) SET c.schema = 4"))
      const after = yield* Effect.provide(Effect.all([board, verified]), stackOn(graph))
      expect(after[0]).toEqual(expected)
      // The edge took over the queue's last place: 8 posts took 8 places (a rejection takes none).
      const tally = yield* Effect.promise(() => raw(graph, "MATCH (:TaskQueue)-[qt:TALLY]->() RETURN qt.tail AS tail"))
      expect(tally.data).toEqual([{ tail: 8 }])
      expect(after[1].taskCounts).toEqual([])
    }).pipe(Effect.scoped),
  60_000
)

it.live("verify finds a counter changed by hand, and names it", () =>
  Effect.gen(function*() {
    const graph = yield* ownGraph("task_counts_drift")
    yield* Effect.provide(buildBoard, stackOn(graph))
    yield* Effect.promise(() => raw(graph, "MATCH (:TaskQueue)-[qt:TALLY]->() SET qt.n_done = qt.n_done + 2"))
    const found = yield* Effect.provide(verified, stackOn(graph))
    expect(found.taskCounts).toEqual([{ status: "done", stored: 3, counted: 1 }])
  }).pipe(Effect.scoped), 60_000)
