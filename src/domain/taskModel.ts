import { type FinishOutcome, type TaskStatus, taskStatuses } from "./tasks.js"

/**
 * The task state machine as pure rules, with lease times in epoch milliseconds from the Clock: the
 * oracle the property test holds the Cypher to (test/tasks/model.test.ts). No Effect, no database.
 *
 * - A task is posted `open` (in the queue) or, when it needs approval, `awaiting_approval` until a
 *   person approves (`open`) or rejects it (`rejected`).
 * - A claim takes an `open` task, or a `claimed` one whose lease has run out: the fence grows by one
 *   and the claimer holds it until `lease_until`. The holder is (claimed_by, fence): the same name
 *   without the fence holds nothing.
 * - The holder presenting its fence extends its lease (a heartbeat; the fence stays). A stale fence
 *   is `lease_lost`; anyone else on a live lease gets `already_claimed`.
 * - Only the holder with the current fence finishes: `done`; `failed` counts an attempt and requeues
 *   at the tail, or stays `failed` once attempts reach max; `released` requeues without counting.
 *   A lease that ran out but was not reclaimed still lets its holder finish (no one else holds it).
 *   Finishing again with the same fence and outcome answers the first finish (a retry).
 * - The queue (a claim without a task id) takes a claimed task whose lease ran out, if any (the one
 *   whose lease ran out first, of equal leases the lowest id: a replayed claim must pick the same),
 *   else the open task that entered the queue first (the lowest `seq`).
 */
export interface ModelTask {
  readonly id: string
  readonly needsApproval: boolean
  readonly maxAttempts: number
  status: TaskStatus
  attempts: number
  holder: string | null
  fence: number
  leaseUntil: number | null
  /** Place in the queue while open; null otherwise. */
  seq: number | null
  lastOutcome: FinishOutcome | null
}

export interface ModelBoard {
  readonly tasks: Map<string, ModelTask>
  tail: number
}

export const emptyBoard = (): ModelBoard => ({ tasks: new Map(), tail: 0 })

export type Refusal =
  | { readonly _tag: "not_found" }
  | { readonly _tag: "already_claimed"; readonly holder: string; readonly until: number }
  | { readonly _tag: "lease_lost" }
  | { readonly _tag: "not_claimable"; readonly status: TaskStatus }
  | { readonly _tag: "not_pending"; readonly status: TaskStatus }

export type Outcome<A> = { readonly ok: A } | { readonly refused: Refusal }

export const isExpired = (t: ModelTask, now: number): boolean =>
  t.status === "claimed" && t.leaseUntil !== null && t.leaseUntil <= now

/** The status a reader sees: a claim whose lease ran out is open again. */
export const shownStatus = (t: ModelTask, now: number): TaskStatus => isExpired(t, now) ? "open" : t.status

const enqueue = (board: ModelBoard, t: ModelTask) => {
  board.tail += 1
  t.seq = board.tail
}

export const post = (board: ModelBoard, id: string, needsApproval: boolean, maxAttempts: number): ModelTask => {
  const t: ModelTask = {
    id,
    needsApproval,
    maxAttempts,
    status: needsApproval ? "awaiting_approval" : "open",
    attempts: 0,
    holder: null,
    fence: 0,
    leaseUntil: null,
    seq: null,
    lastOutcome: null
  }
  // Every post takes a place number, as the Cypher does; one awaiting approval leaves it unused.
  board.tail += 1
  if (!needsApproval) t.seq = board.tail
  board.tasks.set(id, t)
  return t
}

export const decide = (board: ModelBoard, id: string, approve: boolean): Outcome<ModelTask> => {
  const t = board.tasks.get(id)
  if (t === undefined) return { refused: { _tag: "not_found" } }
  if (t.status !== "awaiting_approval") return { refused: { _tag: "not_pending", status: t.status } }
  if (approve) {
    t.status = "open"
    enqueue(board, t)
  } else {
    t.status = "rejected"
  }
  return { ok: t }
}

export interface Claimed {
  readonly task: ModelTask
  readonly fence: number
  readonly leaseUntil: number
  readonly heartbeat: boolean
}

const take = (t: ModelTask, by: string, now: number, leaseMillis: number): Claimed => {
  t.status = "claimed"
  t.holder = by
  t.fence += 1
  t.leaseUntil = now + leaseMillis
  t.seq = null
  return { task: t, fence: t.fence, leaseUntil: t.leaseUntil, heartbeat: false }
}

/** Claim (or heartbeat) the named task. */
export const claimTask = (
  board: ModelBoard,
  id: string,
  by: string,
  fence: number | null,
  now: number,
  leaseMillis: number
): Outcome<Claimed> => {
  const t = board.tasks.get(id)
  if (t === undefined) return { refused: { _tag: "not_found" } }
  if (fence !== null) {
    if (t.status !== "claimed" || t.fence !== fence || t.holder !== by) return { refused: { _tag: "lease_lost" } }
    t.leaseUntil = now + leaseMillis
    return { ok: { task: t, fence: t.fence, leaseUntil: t.leaseUntil, heartbeat: true } }
  }
  if (t.status === "claimed" && !isExpired(t, now)) {
    return { refused: { _tag: "already_claimed", holder: t.holder ?? "", until: t.leaseUntil ?? 0 } }
  }
  if (t.status !== "open" && t.status !== "claimed") return { refused: { _tag: "not_claimable", status: t.status } }
  return { ok: take(t, by, now, leaseMillis) }
}

/** What a claim without a task id may take: every expired claim, or else the first open task (or nothing). */
export const queueCandidates = (board: ModelBoard, now: number): ReadonlyArray<ModelTask> => {
  const expired = [...board.tasks.values()].filter((t) => isExpired(t, now))
  expired.sort((a, b) => a.leaseUntil! - b.leaseUntil! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  if (expired.length > 0) return expired.slice(0, 1)
  const open = [...board.tasks.values()].filter((t) => t.status === "open" && t.seq !== null)
  open.sort((a, b) => a.seq! - b.seq!)
  return open.slice(0, 1)
}

/** The queue's claim, taking `chosen` (which must be one of `queueCandidates`), or null when there is none. */
export const claimNext = (
  board: ModelBoard,
  chosen: string | null,
  by: string,
  now: number,
  leaseMillis: number
): Claimed | null => {
  if (chosen === null) return null
  const t = board.tasks.get(chosen)
  return t === undefined ? null : take(t, by, now, leaseMillis)
}

export interface Finished {
  readonly task: ModelTask
  readonly repeat: boolean
}

export const finishTask = (
  board: ModelBoard,
  id: string,
  by: string,
  fence: number,
  outcome: FinishOutcome
): Outcome<Finished> => {
  const t = board.tasks.get(id)
  if (t === undefined) return { refused: { _tag: "not_found" } }
  if (t.holder !== by || t.fence !== fence) return { refused: { _tag: "lease_lost" } }
  if (t.status !== "claimed") {
    return t.lastOutcome === outcome ? { ok: { task: t, repeat: true } } : { refused: { _tag: "lease_lost" } }
  }
  t.leaseUntil = null
  t.lastOutcome = outcome
  if (outcome === "done") {
    t.status = "done"
  } else {
    if (outcome === "failed") t.attempts += 1
    if (t.attempts >= t.maxAttempts) {
      t.status = "failed"
    } else {
      t.status = "open"
      enqueue(board, t)
    }
  }
  return { ok: { task: t, repeat: false } }
}

/** How many tasks the board shows in each status (a list's totals). */
export const totals = (board: ModelBoard, now: number): Record<TaskStatus, number> => {
  const counts = Object.fromEntries(taskStatuses.map((s) => [s, 0])) as Record<TaskStatus, number>
  for (const t of board.tasks.values()) counts[shownStatus(t, now)] += 1
  return counts
}
