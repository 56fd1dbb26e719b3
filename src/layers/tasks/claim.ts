import { Effect, Schema } from "effect"
import { AlreadyClaimed, InvalidInput, LeaseLost, TaskNotFound } from "../../domain/errors.js"
import { TaskFromRow } from "../../domain/tasks.js"
import { toIso } from "../../domain/time.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { Claim, ClaimRequest } from "../../services/TaskStore.js"
import { moveCount } from "./taskCounts.js"
import { queueNode, taskMap } from "./taskMap.js"

/** How many queue places one claim looks at past the head (exact index lookups, then a sort of at most this many). */
export const queueWindow = 64

/** The write that takes a task: the fence grows, the lease starts, the task leaves the queue. */
const take = "SET t.status = 'claimed', t.holder = $by, t.fence = t.fence + 1, t.lease_until = $now + $lease, " +
  "t.claimed_at = $now, t.claim_id = $claimId, t.seq = null"

const returned = `RETURN verdict, t.fence AS fence, t.lease_until AS lease_until, t.holder AS holder, ` +
  `CASE WHEN t IS NULL THEN null ELSE ${taskMap("t")} END AS task`

/**
 * Claim or heartbeat one named task, as one compare-and-set statement (FalkorDB runs one write
 * statement of a graph at a time, so what it reads is what it writes over). A claim id already on a
 * task held by the caller is a retry of a claim that landed: answered as it stands.
 */
export const byIdQuery = `OPTIONAL MATCH (prev:Task {claim_id: $claimId}) ` +
  `WITH head(collect(prev)) AS prev ` +
  `MATCH (t:Task {id: $id}) ` +
  `WITH t, CASE ` +
  `WHEN $fence IS NOT NULL THEN CASE WHEN t.status = 'claimed' AND t.fence = $fence AND t.holder = $by ` +
  `THEN 'heartbeat' ELSE 'lease_lost' END ` +
  `WHEN prev IS NOT NULL AND prev.id <> t.id THEN 'reused' ` +
  `WHEN prev IS NOT NULL AND t.status = 'claimed' AND t.holder = $by THEN 'repeat' ` +
  `WHEN t.status = 'claimed' AND t.lease_until > $now THEN 'already_claimed' ` +
  `WHEN t.status = 'open' OR t.status = 'claimed' THEN 'claim' ` +
  `ELSE 'not_claimable' END AS verdict, t.status AS was ` +
  `${queueNode} ` +
  `WITH t, verdict, was, qt ` +
  `FOREACH (_ IN CASE WHEN verdict = 'heartbeat' THEN [1] ELSE [] END | SET t.lease_until = $now + $lease) ` +
  `FOREACH (_ IN CASE WHEN verdict = 'claim' THEN [1] ELSE [] END | ${take}, ${moveCount("qt", "was", "'claimed'")}) ` +
  returned

/**
 * The queue's next task, as one statement: a claim whose lease ran out (any one, through the
 * lease_until range index), else the open task with the lowest place at or past the queue's head
 * (exact lookups through the seq index: the head's place, and only when that is empty the rest of
 * `queueWindow` places; never a sort of every open task).
 * The head moves past the place taken; a window with no open task moves it a window on and answers
 * `again` while places remain beyond it.
 */
export const queueQuery =
  `OPTIONAL MATCH (prev:Task {claim_id: $claimId}) WHERE prev.status = 'claimed' AND prev.holder = $by ` +
  `WITH head(collect(prev)) AS prev ` +
  `OPTIONAL MATCH (x:Task) WHERE x.lease_until <= $now ` +
  `WITH prev, x LIMIT 1 ` +
  `${queueNode} ` +
  `WITH prev, x, q, qt OPTIONAL MATCH (h:Task {seq: q.head}) ` +
  // Each lookup is ~17 us: 64 of them were 1.1 of the statement's 1.3 ms (PROFILE, bench:tasks).
  `WITH prev, x, q, qt, h UNWIND CASE WHEN h IS NULL THEN range(q.head + 1, q.head + $window - 1) ELSE [-1] END AS place ` +
  `OPTIONAL MATCH (w:Task {seq: place}) ` +
  `WITH prev, x, q, qt, coalesce(h, w) AS o ORDER BY o.seq LIMIT 1 ` +
  `WITH prev, x, q, qt, o, coalesce(prev, x, o) AS t, CASE ` +
  `WHEN prev IS NOT NULL THEN 'repeat' ` +
  `WHEN x IS NOT NULL OR o IS NOT NULL THEN 'claim' ` +
  `WHEN q.head + $window <= qt.tail THEN 'again' ` +
  `ELSE 'empty' END AS verdict ` +
  `FOREACH (_ IN CASE WHEN verdict = 'claim' AND x IS NULL THEN [1] ELSE [] END | SET q.head = o.seq + 1) ` +
  `FOREACH (_ IN CASE WHEN verdict = 'again' THEN [1] ELSE [] END | SET q.head = q.head + $window) ` +
  // An expired claim taken again stays claimed: only an open task moves the counters.
  `FOREACH (_ IN CASE WHEN verdict = 'claim' THEN [1] ELSE [] END | ${take}, ` +
  `${moveCount("qt", "CASE WHEN x IS NULL THEN 'open' END", "CASE WHEN x IS NULL THEN 'claimed' END")}) ` +
  returned

const Row = Schema.Struct({
  verdict: Schema.Literal(
    "heartbeat",
    "lease_lost",
    "reused",
    "repeat",
    "already_claimed",
    "claim",
    "not_claimable",
    "again",
    "empty"
  ),
  fence: Schema.NullOr(Schema.Number),
  lease_until: Schema.NullOr(Schema.Number),
  holder: Schema.NullOr(Schema.String),
  task: Schema.NullOr(TaskFromRow)
})
type Row = typeof Row.Type

const statusWords: Record<string, string> = {
  done: "is done",
  failed: "failed for good (its attempts are used up)",
  rejected: "was rejected by a person",
  awaiting_approval: "awaits a person's approval (npm run task -- approve)"
}

export const leaseLost = new LeaseLost({
  message: "fencing_token: this claim no longer holds the task (its lease ran out and another claim took it, " +
    "or it is finished); nothing was written. Claim it again or take another task"
})

const answer = (row: Row): Effect.Effect<Claim | null, AlreadyClaimed | LeaseLost | InvalidInput> => {
  switch (row.verdict) {
    case "lease_lost":
      return Effect.fail(leaseLost)
    case "reused":
      return Effect.fail(
        new InvalidInput({
          message: "request_id: was already used for a claim of another task; use a new request_id for a new claim"
        })
      )
    case "already_claimed":
      return Effect.fail(
        new AlreadyClaimed({
          message: `task_id: claimed by ${row.holder} until ${
            toIso(row.lease_until ?? 0)
          }; take another task, or claim it after that if it is not finished`
        })
      )
    case "not_claimable":
      return Effect.fail(
        new InvalidInput({ message: `task_id: the task ${statusWords[row.task?.status ?? ""] ?? "cannot be claimed"}` })
      )
    case "empty":
    case "again":
      return Effect.succeed(null)
    default:
      return row.task === null || row.fence === null || row.lease_until === null
        ? Effect.dieMessage("claim returned no task")
        : Effect.succeed({
          task: row.task,
          fence: row.fence,
          leaseUntil: row.lease_until,
          heartbeat: row.verdict === "heartbeat"
        })
  }
}

export const claim = Effect.fn("relay/tasks/claim")(function*(db: GraphDatabase["Type"], now: number, r: ClaimRequest) {
  const params = {
    claimId: r.claimId,
    by: r.claimedBy,
    lease: r.leaseMillis,
    now
  }
  if (r.taskId !== null) {
    const rows = yield* db.write(byIdQuery, { ...params, id: r.taskId, fence: r.fence }, Row)
    const row = rows[0]
    if (row === undefined) return yield* new TaskNotFound({ message: "task_id: no task with that id" })
    return yield* answer(row)
  }
  // Each `again` moved the head a window on past places with no open task; it stops at the tail.
  for (;;) {
    const rows = yield* db.write(queueQuery, { ...params, window: queueWindow }, Row)
    const row = rows[0]
    if (row === undefined) return yield* Effect.dieMessage("queue claim returned no row")
    if (row.verdict !== "again") return yield* answer(row)
  }
})
