import { Context, type Effect } from "effect"
import type {
  AlreadyClaimed,
  DatabaseError,
  FactNotFound,
  InvalidInput,
  LeaseLost,
  TaskNotFound
} from "../domain/errors.js"
import type { FinishOutcome, ProcedureRunOfTask, Task, TaskPlace, TaskStatus } from "../domain/tasks.js"

export interface NewTask {
  readonly id: string
  readonly title: string
  readonly detail: string | null
  readonly writtenBy: string
  readonly about: ReadonlyArray<string>
  readonly needsApproval: boolean
  readonly maxAttempts: number
  /** The procedure it follows (issue 44): its finish records that procedure's run. */
  readonly procedureId?: string | null | undefined
}

export interface ClaimRequest {
  readonly claimedBy: string
  /** null: the queue's next task. */
  readonly taskId: string | null
  /** The caller's fencing token: a heartbeat of the lease it holds. */
  readonly fence: number | null
  readonly leaseMillis: number
  /** Recorded on the claim, so a retry with the same request_id answers the claim that landed. */
  readonly claimId: string
}

export interface Claim {
  readonly task: Task
  readonly fence: number
  readonly leaseUntil: number
  readonly heartbeat: boolean
}

export interface FinishRequest {
  readonly taskId: string
  readonly claimedBy: string
  readonly fence: number
  readonly outcome: FinishOutcome
  readonly note: string | null
}

export interface TaskListRequest {
  readonly status: TaskStatus | null
  readonly claimedBy: string | null
  /** A fact id: only tasks about a fact of its thread (connected to it through BUILDS_ON). */
  readonly thread: string | null
  readonly limit: number
  /** The last task of the previous page (newest first). */
  readonly after: TaskPlace | null
}

export type TaskTotals = Readonly<Record<TaskStatus, number>>

/** A failed attempt, for the briefing: the task and what its agent wrote. */
export interface TaskFailure {
  readonly task: Task
  readonly note: string | null
  readonly by: string
  readonly at: number
}

export interface TaskBriefingRequest {
  readonly name: string
  readonly since: number
  readonly asOf: number
  readonly limit: number
}

export interface TaskBriefing {
  /** Posted by others in the window, newest first. */
  readonly posted: ReadonlyArray<Task>
  /** Held by others on a live lease now. */
  readonly claimedByOthers: ReadonlyArray<Task>
  /** Failures (by anyone) in the window, newest first, with their notes. */
  readonly failures: ReadonlyArray<TaskFailure>
  /** Waiting for a person's approval now, oldest first. */
  readonly awaitingApproval: ReadonlyArray<Task>
}

export interface TaskStoreShape {
  /** Posts a task (a repeat of its id answers the first post, `existing`). */
  readonly post: (
    task: NewTask
  ) => Effect.Effect<{ readonly task: Task; readonly existing: boolean }, FactNotFound | InvalidInput | DatabaseError>
  /** One compare-and-set statement: claims, heartbeats, or takes the queue's next (null: nothing to take). */
  readonly claim: (
    request: ClaimRequest
  ) => Effect.Effect<Claim | null, TaskNotFound | AlreadyClaimed | LeaseLost | InvalidInput | DatabaseError>
  readonly finish: (
    request: FinishRequest
  ) => Effect.Effect<
    { readonly task: Task; readonly repeat: boolean; readonly run: ProcedureRunOfTask | null },
    TaskNotFound | LeaseLost | DatabaseError
  >
  readonly list: (
    request: TaskListRequest
  ) => Effect.Effect<
    { readonly tasks: ReadonlyArray<Task>; readonly more: boolean; readonly totals: TaskTotals },
    FactNotFound | InvalidInput | DatabaseError
  >
  /** A person's approval or rejection of a task awaiting it. */
  readonly decide: (
    id: string,
    approve: boolean,
    by: string
  ) => Effect.Effect<Task, TaskNotFound | InvalidInput | DatabaseError>
  readonly briefing: (request: TaskBriefingRequest) => Effect.Effect<TaskBriefing, DatabaseError>
  /** For each prefix, the ids of at most three tasks that start with it (none: no such task). */
  readonly idsStartingWith: (
    prefixes: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<string>>, DatabaseError>
}

/** The task board: tasks that one agent claims at a time, on leases with fencing tokens. */
export class TaskStore extends Context.Tag("relay/TaskStore")<TaskStore, TaskStoreShape>() {}
