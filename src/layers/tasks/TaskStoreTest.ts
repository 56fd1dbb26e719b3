import { Effect, Layer, Ref } from "effect"
import { AlreadyClaimed, InvalidInput, type LeaseLost, TaskNotFound } from "../../domain/errors.js"
import * as Model from "../../domain/taskModel.js"
import { type FinishOutcome, type Task, type TaskPlace, type TaskStatus, taskStatuses } from "../../domain/tasks.js"
import { toIso } from "../../domain/time.js"
import { type Claim, TaskStore, type TaskStoreShape } from "../../services/TaskStore.js"
import { stampNow } from "../database/stampNow.js"
import { claimIdReused, leaseLost, notClaimableMessage } from "./claim.js"
import { notPendingMessage } from "./decide.js"
import { requestIdReused } from "./post.js"

/**
 * A TaskStore in memory, on the pure task model (domain/taskModel.ts): claims, leases, fences,
 * finishes, the queue and approvals are the model's rules applied to a board in a Ref made by the
 * layer; stamps and lease times come from Effect's Clock (TestClock runs leases out). What a reply
 * shows besides (title, notes, who decided, the claim's request id) is kept beside each model task.
 * test/rules/taskTestLayer.test.ts holds it to the live store on generated sequences. What the model
 * does not define dies naming itself (`unmodelled`): facts a task names (`about`, `thread`), the
 * procedure a task follows, the briefing's failure notes, id prefixes.
 */

interface TestTask {
  readonly model: Model.ModelTask
  readonly title: string
  readonly detail: string | null
  readonly writtenBy: string
  readonly createdAt: number
  decidedBy: string | null
  /** The request id of the claim that last took it (a retry answers that claim). */
  claimId: string | null
  lastNote:
    | { readonly outcome: FinishOutcome; readonly note: string | null; readonly by: string; readonly at: number }
    | null
}

interface TestBoard {
  readonly board: Model.ModelBoard
  readonly tasks: Map<string, TestTask>
}

const unmodelled = (operation: string) =>
  Effect.dieMessage(
    `TaskStoreTest: ${operation} is not in the pure task model (src/domain/taskModel.ts); test it on FalkorDB`
  )

const notFound = new TaskNotFound({ message: "task_id: no task with that id" })

/** The task as the live store's taskMap shows it at `now`. */
const shown = (t: TestTask, now: number): Task => {
  const m = t.model
  return {
    id: m.id,
    title: t.title,
    detail: t.detail,
    written_by: t.writtenBy,
    created_at: toIso(t.createdAt),
    status: Model.shownStatus(m, now),
    needs_approval: m.needsApproval,
    decided_by: t.decidedBy,
    attempts: m.attempts,
    max_attempts: m.maxAttempts,
    claimed_by: m.holder,
    lease_expires_at: m.status === "claimed" && m.leaseUntil !== null ? toIso(m.leaseUntil) : null,
    about: [],
    last_note: t.lastNote === null
      ? null
      : { outcome: t.lastNote.outcome, note: t.lastNote.note, by: t.lastNote.by, created_at: toIso(t.lastNote.at) }
  }
}

/** Newest first, keyset on (created_at, id): the live list's order (list.ts). */
const newestFirst = (a: TestTask, b: TestTask) =>
  b.createdAt - a.createdAt || (a.model.id < b.model.id ? 1 : a.model.id > b.model.id ? -1 : 0)

const before = (after: TaskPlace | null) => (t: TestTask) =>
  after === null || t.createdAt < after.createdAt || (t.createdAt === after.createdAt && t.model.id < after.id)

export const makeTaskStoreTest = Effect.gen(function*() {
  const state = yield* Ref.make<TestBoard>({ board: Model.emptyBoard(), tasks: new Map() })
  // One operation at a time, as one live statement is: the model's rules change a copy of the board,
  // which replaces the board only when the operation succeeds (a refusal writes nothing).
  const lock = yield* Effect.makeSemaphore(1)
  const withBoard = <A, E>(f: (b: TestBoard, now: number) => Effect.Effect<A, E>) =>
    lock.withPermits(1)(Effect.gen(function*() {
      const board = structuredClone(yield* Ref.get(state))
      const out = yield* f(board, yield* stampNow)
      yield* Ref.set(state, board)
      return out
    }))

  const answerClaim = (t: TestTask, now: number, heartbeat: boolean): Claim => ({
    task: shown(t, now),
    fence: t.model.fence,
    leaseUntil: t.model.leaseUntil ?? 0,
    heartbeat
  })

  const store: TaskStoreShape = {
    post: (n) =>
      n.about.length > 0
        ? unmodelled("post with about")
        : (n.procedureId ?? null) !== null
        ? unmodelled("post with procedure_id")
        : withBoard<{ readonly task: Task; readonly existing: boolean }, InvalidInput>((b, now) => {
          const old = b.tasks.get(n.id)
          if (old !== undefined) {
            const same = old.title === n.title && old.detail === n.detail &&
              old.model.needsApproval === n.needsApproval && old.model.maxAttempts === n.maxAttempts
            return same
              ? Effect.succeed({ task: shown(old, now), existing: true })
              : Effect.fail(new InvalidInput({ message: requestIdReused }))
          }
          const t: TestTask = {
            model: Model.post(b.board, n.id, n.needsApproval, n.maxAttempts),
            title: n.title,
            detail: n.detail,
            writtenBy: n.writtenBy,
            createdAt: now,
            decidedBy: null,
            claimId: null,
            lastNote: null
          }
          b.tasks.set(n.id, t)
          return Effect.succeed({ task: shown(t, now), existing: false })
        }),

    claim: (r) =>
      withBoard<Claim | null, TaskNotFound | AlreadyClaimed | LeaseLost | InvalidInput>((b, now) => {
        const taken = (c: Model.Claimed | null) => {
          if (c === null) return Effect.succeed(null)
          const t = b.tasks.get(c.task.id)!
          if (!c.heartbeat) t.claimId = r.claimId
          return Effect.succeed(answerClaim(t, now, c.heartbeat))
        }
        const held = (t: TestTask) => t.model.status === "claimed" && t.model.holder === r.claimedBy
        if (r.taskId === null) {
          // A claim id on a task the caller still holds is a retry of the claim that took it.
          const retried = [...b.tasks.values()].find((t) => t.claimId === r.claimId && held(t))
          if (retried !== undefined) return Effect.succeed(answerClaim(retried, now, false))
          const next = Model.queueCandidates(b.board, now)[0]
          return taken(Model.claimNext(b.board, next?.id ?? null, r.claimedBy, now, r.leaseMillis))
        }
        const t = b.tasks.get(r.taskId)
        if (t === undefined) return Effect.fail(notFound)
        const previous = [...b.tasks.values()].find((x) => x.claimId === r.claimId)
        if (r.fence === null && previous !== undefined) {
          if (previous.model.id !== t.model.id) {
            return Effect.fail(new InvalidInput({ message: claimIdReused }))
          }
          if (held(t)) return Effect.succeed(answerClaim(t, now, false))
        }
        const out = Model.claimTask(b.board, r.taskId, r.claimedBy, r.fence, now, r.leaseMillis)
        if ("ok" in out) return taken(out.ok)
        switch (out.refused._tag) {
          case "already_claimed":
            return Effect.fail(
              new AlreadyClaimed({
                message: `task_id: claimed by ${out.refused.holder} until ${
                  toIso(out.refused.until)
                }; take another task, or claim it after that if it is not finished`
              })
            )
          case "not_claimable":
            return Effect.fail(new InvalidInput({ message: notClaimableMessage(out.refused.status) }))
          case "lease_lost":
            return Effect.fail(leaseLost)
          default:
            return Effect.fail(notFound)
        }
      }),

    finish: (r) =>
      withBoard<
        { readonly task: Task; readonly repeat: boolean; readonly run: null },
        TaskNotFound | LeaseLost
      >((b, now) => {
        const out = Model.finishTask(b.board, r.taskId, r.claimedBy, r.fence, r.outcome)
        if ("refused" in out) return Effect.fail(out.refused._tag === "not_found" ? notFound : leaseLost)
        const t = b.tasks.get(r.taskId)!
        if (!out.ok.repeat) t.lastNote = { outcome: r.outcome, note: r.note, by: r.claimedBy, at: now }
        return Effect.succeed({ task: shown(t, now), repeat: out.ok.repeat, run: null })
      }),

    list: (r) =>
      r.thread !== null ? unmodelled("list of a thread") : withBoard((b, now) => {
        const mine = [...b.tasks.values()].filter((t) => r.claimedBy === null || t.model.holder === r.claimedBy)
        const totals = Object.fromEntries(taskStatuses.map((s) => [s, 0])) as Record<TaskStatus, number>
        for (const t of mine) totals[Model.shownStatus(t.model, now)] += 1
        const rows = mine
          .filter((t) => r.status === null || Model.shownStatus(t.model, now) === r.status)
          .filter(before(r.after))
          .sort(newestFirst)
        return Effect.succeed({
          tasks: rows.slice(0, r.limit).map((t) => shown(t, now)),
          more: rows.length > r.limit,
          totals
        })
      }),

    decide: (id, approve, by) =>
      withBoard<Task, TaskNotFound | InvalidInput>((b, now) => {
        const out = Model.decide(b.board, id, approve)
        const t = b.tasks.get(id)
        if (t === undefined) return Effect.fail(notFound)
        if ("refused" in out) {
          return Effect.fail(new InvalidInput({ message: notPendingMessage(Model.shownStatus(t.model, now)) }))
        }
        t.decidedBy = by
        return Effect.succeed(shown(t, now))
      }),

    briefing: () => unmodelled("briefing"),
    idsStartingWith: () => unmodelled("idsStartingWith")
  }
  return store
})

/**
 * The task board on the pure model, a new empty board for each layer built. Tools that reach what
 * the model does not define (above) die, so such a test goes to FalkorDB instead.
 */
export const TaskStoreTest = Layer.effect(TaskStore, makeTaskStoreTest)
