import { Effect, Schema } from "effect"
import { InvalidInput, noFactWithId } from "../../domain/errors.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"

/**
 * The most facts a thread scope reads. A thread past it answers `invalid_input` on `thread` (never a
 * partial answer: a read scoped to part of a thread would say wrong things about the rest).
 */
export const threadBound = 10_000

/**
 * A thread: the facts connected to the given one through BUILDS_ON, either direction: the facts of
 * its root (each fact stores its thread's root: threadClusters.ts), read through the Fact.root
 * index and cut after `threadBound` + 1 by the LIMIT, so a thread of any size costs at most that.
 * As of a time: the facts stamped by then (in a tree, those are connected among themselves: a
 * fact's parent is older than it).
 */
export const threadQuery = `MATCH (s:Fact {id: $thread}) WITH s, s.root AS rt ` +
  // The root bound first: `m.root = s.root` is planned as a join over every fact.
  `MATCH (m:Fact) WHERE m.root = rt WITH s, m LIMIT $steps ` +
  `RETURN s.created_at AS at, count(m) AS steps, ` +
  `[x IN collect(m) WHERE x.created_at <= $asOf | id(x)] AS members`

const Row = Schema.Struct({ at: Schema.Number, steps: Schema.Number, members: Schema.Array(Schema.Number) })

export const tooLargeThread = new InvalidInput({
  message: `thread: more than ${threadBound} facts are connected to this fact (the most a thread scope reads)`
})

/** The node ids of the thread of `id` as of `asOf` (null: now); fact_not_found when it did not exist then. */
export const threadMembers = Effect.fn("relay/factStore/threadMembers")(function*(
  db: GraphDatabase["Type"],
  id: string,
  asOf: number | null
) {
  const rows = yield* db.read(threadQuery, {
    thread: id,
    steps: threadBound + 1,
    asOf: asOf ?? Number.MAX_SAFE_INTEGER
  }, Row)
  const row = rows[0]
  if (row === undefined || (asOf !== null && row.at > asOf)) return yield* noFactWithId("thread", id)
  if (row.steps > threadBound) return yield* tooLargeThread
  return row.members
})
