import { confirmSpecialsCap, confirmWorkCap } from "../rules.js"
import { byId, type GraphModel } from "./graph.js"
import { retractedIds, status, supersededIds } from "./status.js"
import { impact } from "./walks.js"

/**
 * relay_confirm_fact: a stale fact still holds. The confirmation covers every decision and
 * retraction above the fact stamped before it, for the fact and for what builds on it through it,
 * but not through a merge already saved, which stood on more than this fact (status.ts,
 * staleReasons); one stamped later makes them stale again.
 */

/** Why a confirmation is refused; undefined when it may be written. */
export type ConfirmRule = "fact_not_found" | "not_stale" | "decided" | "too_many"

/**
 * What a confirmation of `id` does now: writes one (the fact is stale), answers the latest one (the
 * fact is current again already: a retry, or another agent was first), or is refused.
 */
export const confirmOutcome = (
  model: GraphModel,
  id: string
): { readonly refused: ConfirmRule } | { readonly already: number } | "confirms" => {
  if (!byId(model).has(id)) return { refused: "fact_not_found" }
  const superseded = supersededIds(model)
  const retracted = retractedIds(model)
  if (superseded.has(id) || retracted.has(id)) return { refused: "decided" }
  if (status(model, id) === "stale") {
    // Its statement walks the subtree once per decided or confirmed fact below it: bounded.
    const confirmed = new Set((model.confirmations ?? []).map((c) => c.fact))
    const below = impact(model, id)
    const special = below.filter((d) => superseded.has(d.id) || retracted.has(d.id) || confirmed.has(d.id))
    return special.length > confirmSpecialsCap || special.length * below.length > confirmWorkCap
      ? { refused: "too_many" }
      : "confirms"
  }
  const last = lastConfirmation(model, id)
  return last === null ? { refused: "not_stale" } : { already: last }
}

/** The latest confirmation of a fact, if any (what a confirmation of a fact no longer stale answers). */
export const lastConfirmation = (model: GraphModel, id: string): number | null => {
  const stamps = (model.confirmations ?? []).filter((c) => c.fact === id).map((c) => c.createdAt)
  return stamps.length === 0 ? null : Math.max(...stamps)
}
