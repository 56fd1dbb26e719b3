import { Effect, Schema } from "effect"
import { AlreadyClaimed, InvalidInput, LeaseLost, TaskNotFound } from "../../domain/errors.js"
import { TaskFromRow } from "../../domain/tasks.js"
import { toIso } from "../../domain/time.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { Claim, ClaimRequest } from "../../services/TaskStore.js"
import { moveCount } from "./taskCounts.js"
import { queueNode, taskById, taskMap } from "./taskMap.js"

/** How many queue places one claim looks at past the head (exact index lookups, then a sort of at most this many). */
export const queueWindow = 64

/**
 * The write that takes a task (its STATE edge bound as `t_s`): the fence grows, the lease starts,
 * the task leaves the queue.
 */
const take = "SET t_s.status = 'claimed', t_s.holder = $by, t_s.fence = t_s.fence + 1, " +
  "t_s.lease_until = $now + $lease, t_s.claimed_at = $now, t_s.claim_id = $claimId, t_s.seq = null"

const returned = `RETURN verdict, t_s.fence AS fence, t_s.lease_until AS lease_until, t_s.holder AS holder, ` +
  `CASE WHEN t IS NULL THEN null ELSE ${taskMap("t")} END AS task`

/** The task a claim id already took (a retry), as `prev` and its STATE edge `prev_s`, or nulls. */
const previous = (where: string) =>
  `OPTIONAL MATCH (prev)-[prev_s:STATE {claim_id: $claimId}]->() ${where}` +
  `WITH head(collect([prev, prev_s])) AS prevs WITH prevs[0] AS prev, prevs[1] AS prev_s `

/**
 * Claim or heartbeat one named task, as one compare-and-set statement (FalkorDB runs one write
 * statement of a graph at a time, so what it reads is what it writes over). A claim id already on a
 * task held by the caller is a retry of a claim that landed: answered as it stands.
 */
export const byIdQuery = previous("") +
  `${taskById("$id")}` +
  `WITH t, t_s, CASE ` +
  `WHEN $fence IS NOT NULL THEN CASE WHEN t_s.status = 'claimed' AND t_s.fence = $fence AND t_s.holder = $by ` +
  `THEN 'heartbeat' ELSE 'lease_lost' END ` +
  `WHEN prev IS NOT NULL AND prev.id <> t.id THEN 'reused' ` +
  `WHEN prev IS NOT NULL AND t_s.status = 'claimed' AND t_s.holder = $by THEN 'repeat' ` +
  `WHEN t_s.status = 'claimed' AND t_s.lease_until > $now THEN 'already_claimed' ` +
  `WHEN t_s.status = 'open' OR t_s.status = 'claimed' THEN 'claim' ` +
  `ELSE 'not_claimable' END AS verdict, t_s.status AS was ` +
  `${queueNode} ` +
  `WITH t, t_s, verdict, was, qt ` +
  `FOREACH (_ IN CASE WHEN verdict = 'heartbeat' THEN [1] ELSE [] END | SET t_s.lease_until = $now + $lease) ` +
  `FOREACH (_ IN CASE WHEN verdict = 'claim' THEN [1] ELSE [] END | ${take}, ${moveCount("qt", "was", "'claimed'")}) ` +
  returned

/**
 * The queue's next task, as one statement: the claim whose lease ran out first (through the
 * lease_until index; of equal leases the lowest id, so a replica or a replayed append-only file that
 * runs this query picks the task it picked here), else the open task with the lowest place at or
 * past the queue's head (exact lookups through the seq index: the head's place, and only when that is empty the rest of
 * `queueWindow` places; never a sort of every open task). Every lookup is of a STATE edge's index.
 * The head moves past the place taken; a window with no open task moves it a window on and answers
 * `again` while places remain beyond it. An expired lease counts only on a `claimed` task (briefing.ts:
 * a finished task may keep its last lease).
 */
export const queueQuery = previous("WHERE prev_s.status = 'claimed' AND prev_s.holder = $by ") +
  `OPTIONAL MATCH (ex)-[ex_s:STATE]->() WHERE ex_s.lease_until <= $now AND ex_s.status = 'claimed' ` +
  `WITH prev, prev_s, min(ex_s.lease_until) AS oldest ` +
  `OPTIONAL MATCH (x)-[x_s:STATE {lease_until: oldest}]->() WHERE x_s.status = 'claimed' ` +
  `WITH prev, prev_s, x, x_s ORDER BY x.id LIMIT 1 ` +
  `${queueNode} ` +
  `WITH prev, prev_s, x, x_s, qt OPTIONAL MATCH (h)-[h_s:STATE {seq: qt.head}]->() ` +
  // Each lookup is ~17 us: 64 of them were 1.1 of the statement's 1.3 ms (PROFILE, bench:tasks).
  `WITH prev, prev_s, x, x_s, qt, h, h_s ` +
  `UNWIND CASE WHEN h IS NULL THEN range(qt.head + 1, qt.head + $window - 1) ELSE [-1] END AS place ` +
  `OPTIONAL MATCH (w)-[w_s:STATE {seq: place}]->() ` +
  `WITH prev, prev_s, x, x_s, qt, coalesce(h, w) AS o, coalesce(h_s, w_s) AS o_s ORDER BY o_s.seq LIMIT 1 ` +
  `WITH o_s.seq AS placeTaken, x, qt, coalesce(prev, x, o) AS t, coalesce(prev_s, x_s, o_s) AS t_s, CASE ` +
  `WHEN prev IS NOT NULL THEN 'repeat' ` +
  `WHEN x IS NOT NULL OR o IS NOT NULL THEN 'claim' ` +
  `WHEN qt.head + $window <= qt.tail THEN 'again' ` +
  `ELSE 'empty' END AS verdict ` +
  `FOREACH (_ IN CASE WHEN verdict = 'claim' AND x IS NULL THEN [1] ELSE [] END | SET qt.head = placeTaken + 1) ` +
  `FOREACH (_ IN CASE WHEN verdict = 'again' THEN [1] ELSE [] END | SET qt.head = qt.head + $window) ` +
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

/** Why a task of this (shown) status cannot be claimed. */
export const notClaimableMessage = (status: string | undefined): string =>
  `task_id: the task ${statusWords[status ?? ""] ?? "cannot be claimed"}`

export const claimIdReused =
  "request_id: was already used for a claim of another task; use a new request_id for a new claim"

export const leaseLost = new LeaseLost({
  message: "fencing_token: this claim no longer holds the task (its lease ran out and another claim took it, " +
    "or it is finished); nothing was written. Claim it again or take another task"
})

const answer = (row: Row): Effect.Effect<Claim | null, AlreadyClaimed | LeaseLost | InvalidInput> => {
  switch (row.verdict) {
    case "lease_lost":
      return Effect.fail(leaseLost)
    case "reused":
      return Effect.fail(new InvalidInput({ message: claimIdReused }))
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
        new InvalidInput({ message: notClaimableMessage(row.task?.status) })
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
