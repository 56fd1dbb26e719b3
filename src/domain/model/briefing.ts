import { type ModelConflict, openConflicts } from "./conflicts.js"
import type { GraphModel } from "./graph.js"
import { asOf, retractedIds } from "./status.js"

/** What a briefing for `reader` over the window `since < created_at <= asOf` holds. */
export interface ModelBriefing {
  /** Oldest first. */
  readonly newFacts: Array<string>
  /** [winner, loser], oldest decision first. */
  readonly decisions: Array<[string, string]>
  /** The retracted facts' ids, oldest retraction first. */
  readonly retractions: Array<string>
  readonly openConflicts: Array<ModelConflict>
}

/**
 * relay_get_briefing: what others wrote in the window (a reader does not see its own facts or
 * decisions), withdrawn facts left out (the fence stamps as_of after every retraction so far),
 * and the open conflicts as the memory stood at asOf, whoever wrote them.
 */
export const briefing = (model: GraphModel, reader: string, since: number, until: number): ModelBriefing => {
  const inWindow = (x: { readonly createdAt?: number }) =>
    x.createdAt !== undefined && x.createdAt > since && x.createdAt <= until
  const retracted = retractedIds(model)
  return {
    newFacts: model.facts
      .filter((f) => inWindow(f) && f.writtenBy !== reader && !retracted.has(f.id))
      .sort((x, y) => x.createdAt - y.createdAt)
      .map((f) => f.id),
    decisions: model.supersedes
      .filter((r) => inWindow(r) && r.resolvedBy !== reader)
      .sort((x, y) => x.createdAt! - y.createdAt!)
      .map((r): [string, string] => [r.winner, r.loser]),
    retractions: (model.retractions ?? [])
      .filter((r) => inWindow(r) && r.retractedBy !== reader)
      .sort((x, y) => x.createdAt - y.createdAt)
      .map((r) => r.fact),
    openConflicts: openConflicts(asOf(model, until))
  }
}
