import { Effect } from "effect"
import { currentBudget, fit } from "../domain/paging.js"
import type { BriefingTasks } from "../domain/tasks.js"
import { toIso } from "../domain/time.js"
import { TaskStore } from "../services/TaskStore.js"

/** At most this many of each list; the board itself is relay_list_tasks. */
const perList = 20

export const noTasks: BriefingTasks = {
  new_tasks: [],
  claimed_by_others: [],
  failures: [],
  awaiting_approval: [],
  more: false
}

/**
 * The briefing's tasks section, for its first page: each list read with one row more than it may
 * show, then cut to a quarter of the reply's budget (spent in the order of the section), so the
 * section never crowds out the facts; `more` when anything was left out.
 */
export const briefingTasks = Effect.fn("relay/tools/briefingTasks")(function*(
  name: string,
  since: number,
  asOf: number,
  limit: number
) {
  const store = yield* TaskStore
  const take = Math.min(limit, perList)
  const b = yield* store.briefing({ name, since, asOf, limit: take + 1 })
  let budget = Math.floor((yield* currentBudget()) / 4)
  let more = false
  const cut = <A>(items: ReadonlyArray<A>): ReadonlyArray<A> => {
    const shown = items.slice(0, take)
    const { count, used } = fit(shown, budget, 0)
    budget -= used
    if (count < items.length) more = true
    return shown.slice(0, count)
  }
  const section: BriefingTasks = {
    new_tasks: cut(b.posted),
    claimed_by_others: cut(b.claimedByOthers),
    failures: cut(b.failures.map((f) => ({ task: f.task, note: f.note, failed_by: f.by, created_at: toIso(f.at) }))),
    awaiting_approval: cut(b.awaitingApproval),
    more
  }
  return section
})
