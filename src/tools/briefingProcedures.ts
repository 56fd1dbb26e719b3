import { Effect } from "effect"
import { currentBudget, fit } from "../domain/paging.js"
import { FactStore } from "../services/FactStore.js"

/** At most this many of each list. */
const perList = 10

/**
 * The briefing's procedures section (issue 44), for its first page: new warnings and failed runs
 * (with their notes) by others since the reader's place, cut to an eighth of the reply's budget so
 * it never crowds out the facts; null when there is none.
 */
export const briefingProcedures = Effect.fn("relay/tools/briefingProcedures")(function*(
  name: string,
  since: number,
  asOf: number,
  limit: number
) {
  const b = yield* (yield* FactStore).procedureBriefing({ name, since, asOf, limit: Math.min(limit, perList) })
  if (b.warnings.length === 0 && b.failedRuns.length === 0) return null
  let budget = Math.floor((yield* currentBudget()) / 8)
  const cut = <A>(items: ReadonlyArray<A>): ReadonlyArray<A> => {
    const { count, used } = fit(items, budget, 0)
    budget -= used
    return items.slice(0, count)
  }
  return { warnings: cut(b.warnings), failed_runs: cut(b.failedRuns) }
})
