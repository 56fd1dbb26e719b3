import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { TaskStore } from "../../src/services/TaskStore.js"
import { raw } from "../support/ownGraph.js"

/** A board in every stored status: 3 open, 1 claimed, 1 done, 1 failed, 1 awaiting approval, 1 rejected. */
export const buildBoard = Effect.gen(function*() {
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

export const board = Effect.flatMap(
  TaskStore,
  (tasks) =>
    Effect.map(tasks.list({ status: null, claimedBy: null, thread: null, limit: 20, after: null }), (l) => l.totals)
)
export const expected = { open: 3, claimed: 1, done: 1, failed: 1, awaiting_approval: 1, rejected: 1 }

/**
 * Puts a board back as a Relay before schema 6 kept it: every task's changing fields on the node
 * and no STATE edge, the queue's head on the queue node (what moveTaskState.ts takes over).
 */
export const asSchema5 = async (graph: string) => {
  await raw(graph, "MATCH (t:Task)-[s:STATE]->(t) SET t += properties(s) DELETE s")
  await raw(graph, "MATCH (q:TaskQueue)-[qt:TALLY]->(q) SET q.head = qt.head, qt.head = null")
  await raw(graph, "MATCH (c:RelayClock) SET c.schema = 5")
}
