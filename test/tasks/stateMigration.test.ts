import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { moveQuery } from "../../src/layers/tasks/moveTaskState.js"
import { TaskStore } from "../../src/services/TaskStore.js"
import { ownGraph, raw, stackOn } from "../support/ownGraph.js"
import { asSchema5, buildBoard, expected } from "./board.js"

/**
 * Schema 6 moves each task's changing fields to its STATE edge (layers/tasks/moveTaskState.ts): a
 * board from before reads the same after, a migration stopped part way finishes, and the queue goes
 * on from its head.
 */
const everyTask = Effect.flatMap(
  TaskStore,
  (tasks) => tasks.list({ status: null, claimedBy: null, thread: null, limit: 20, after: null })
)

const column = async (graph: string, cypher: string) =>
  ((await raw(graph, cypher)).data ?? []).map((r) => Object.values(r as Record<string, unknown>)[0])

for (const stoppedAfter of [0, 3]) {
  it.live(
    `a board from schema 5 reads the same after its migration (${stoppedAfter} tasks moved before a stop)`,
    () =>
      Effect.gen(function*() {
        const graph = yield* ownGraph("task_state_migrate")
        const before = yield* Effect.provide(Effect.zipRight(buildBoard, everyTask), stackOn(graph))
        const head = yield* Effect.promise(() => column(graph, "MATCH (:TaskQueue)-[qt:TALLY]->() RETURN qt.head"))
        yield* Effect.promise(() => asSchema5(graph))
        expect(yield* Effect.promise(() => column(graph, "MATCH (t:Task) WHERE t.status IS NOT NULL RETURN count(t)")))
          .toEqual([8])
        if (stoppedAfter > 0) yield* Effect.promise(() => raw(graph, moveQuery, { batch: stoppedAfter }))
        const after = yield* Effect.provide(everyTask, stackOn(graph))
        expect(after).toEqual(before)
        expect(after.totals).toEqual(expected)
        const stored = yield* Effect.promise(() =>
          Promise.all([
            column(graph, "MATCH (t:Task) WHERE t.status IS NOT NULL OR t.seq IS NOT NULL RETURN count(t)"),
            column(graph, "MATCH (t:Task)-[s:STATE]->(t) RETURN count(s)"),
            column(graph, "MATCH (q:TaskQueue)-[qt:TALLY]->(q) RETURN [q.head, qt.head]")
          ])
        )
        expect(stored).toEqual([[0], [8], [[null, head[0]]]])
        // The queue goes on: one of the three open tasks, and the board counts it claimed.
        const open = new Set(before.tasks.filter((t) => t.status === "open").map((t) => t.id))
        const taken = yield* Effect.provide(
          Effect.flatMap(TaskStore, (tasks) =>
            Effect.zip(
              tasks.claim({ claimedBy: "bo", taskId: null, fence: null, leaseMillis: 60_000, claimId: randomUUID() }),
              everyTask
            )),
          stackOn(graph)
        )
        expect(open.has(taken[0]!.task.id)).toBe(true)
        expect(taken[1].totals).toEqual({ ...expected, open: 2, claimed: 2 })
      }).pipe(Effect.scoped),
    60_000
  )
}
