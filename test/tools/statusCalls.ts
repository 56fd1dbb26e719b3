import { Effect } from "effect"
import { ok } from "../support/runTool.js"

/** The calls status.test.ts (on FalkorDB) and statusRules.test.ts (on the model) make alike. */

/** Saves a fact by claude-desktop in session s1, answering its id. */
export const save = (content: string, extra: Record<string, unknown> = {}) =>
  ok("relay_save_fact", { content, written_by: "claude-desktop", session_id: "s1", ...extra }).pipe(
    Effect.map((r) => r.fact.id as string)
  )

/** `winner` supersedes `loser` (a decision). */
export const decide = (winner: string, loser: string, reason: string, resolvedBy = "claude-desktop") =>
  ok("relay_resolve_conflict", { winner_fact_id: winner, loser_fact_id: loser, reason, resolved_by: resolvedBy })

/** Up to 100 facts of current_state as [id, status]. */
export const state = (args: Record<string, unknown>) =>
  ok("relay_get_current_state", { limit: 100, ...args }).pipe(
    Effect.map((r) => r.facts.map((f): [string, string] => [f.id, f.status]))
  )

/** Retracts a fact as zed. */
export const retract = (factId: string, extra: Record<string, unknown> = {}) =>
  ok("relay_retract_fact", { fact_id: factId, reason: "it was wrong", retracted_by: "zed", ...extra })
