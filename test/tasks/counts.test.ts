import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { taskStatuses } from "../../src/domain/tasks.js"
import { verifyStored } from "../../src/layers/factStore/verifyStored.js"
import { taskDriftQuery } from "../../src/layers/tasks/taskCounts.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ownGraph, raw, stackOn } from "../support/ownGraph.js"
import { withRawDatabase } from "../support/rawDatabase.js"
import { asSchema5, board, buildBoard, expected } from "./board.js"

/**
 * The board's totals are counters kept on write (layers/tasks/taskCounts.ts): a graph from before
 * them (schema 4) gets them from a recount on first use, and `check-db --verify` finds a counter
 * changed by hand. (The model test holds the counters to the state machine after every step.)
 */

const verified = Effect.flatMap(GraphDatabase, (db) => verifyStored(db))

it.live(
  "a graph from before the counters gets them from a recount, and verify finds none off",
  () =>
    Effect.gen(function*() {
      const graph = yield* ownGraph("task_counts_migrate")
      expect(yield* Effect.provide(Effect.zipRight(buildBoard, board), stackOn(graph))).toEqual(expected)
      // As a schema-4 Relay left it: each task's state and the queue's head and last place on nodes,
      // no TALLY edge, no counters.
      yield* Effect.promise(() => asSchema5(graph))
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

it.live(
  "verify's recount reads the tasks, never every node: a graph of facts and no tasks",
  () =>
    Effect.gen(function*() {
      const graph = yield* ownGraph("task_counts_plan")
      yield* Effect.provide(buildBoard, stackOn(graph))
      yield* Effect.promise(() =>
        raw(graph, "UNWIND range(1, 3000) AS i CREATE (:Fact {id: 'f' + toString(i), content: 'x', created_at: i})")
      )
      const plan = yield* Effect.promise(() =>
        withRawDatabase(async (db) =>
          ((await db.selectGraph(graph).profile(
            `CYPHER statuses=${JSON.stringify(taskStatuses)} ${taskDriftQuery}`
          )) as Array<string>).join("\n")
        )
      )
      expect(plan).not.toMatch(/All Node Scan/)
      // No operator produces a row a fact: at most the board's tasks.
      const produced = [...plan.matchAll(/Records produced: (\d+)/g)].map((m) => Number(m[1]))
      expect(Math.max(...produced)).toBeLessThan(100)
      // And the counts are still right.
      const after = yield* Effect.provide(verified, stackOn(graph))
      expect(after.taskCounts).toEqual([])
    }).pipe(Effect.scoped),
  60_000
)
