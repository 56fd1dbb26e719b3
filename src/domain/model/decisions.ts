import type { CompatibleRule, ResolutionRule } from "../rules.js"
import { byId, type GraphModel, pairKey, parentsOf } from "./graph.js"
import { ancestors } from "./status.js"

/** Whether a decision may be recorded: a supersede (resolution) or a compatible record. */

/** Whether a chain of SUPERSEDES edges leads from `from` to `to`. */
export const supersedesPath = (model: GraphModel, from: string, to: string): boolean => {
  const seen = new Set<string>()
  const stack = [from]
  while (stack.length > 0) {
    const at = stack.pop()!
    for (const r of model.supersedes) {
      if (r.winner !== at || seen.has(r.loser)) continue
      if (r.loser === to) return true
      seen.add(r.loser)
      stack.push(r.loser)
    }
  }
  return false
}

/** Whether one of two facts builds on the other, at any depth. */
export const related = (model: GraphModel, x: string, y: string): boolean =>
  ancestors(model, x).includes(y) || ancestors(model, y).includes(x)

/** Whether winner may supersede loser now; undefined when the resolution is valid. */
export const resolutionViolation = (model: GraphModel, winner: string, loser: string): ResolutionRule | undefined => {
  const facts = byId(model)
  if (winner === loser) return "winner_is_loser"
  if (!facts.has(winner)) return "winner_not_found"
  if (!facts.has(loser)) return "loser_not_found"
  if (model.supersedes.some((r) => r.winner === winner && r.loser === loser)) return undefined
  if (supersedesPath(model, loser, winner)) return "supersedes_cycle"
  if (related(model, winner, loser)) return "builds_on_each_other"
  return undefined
}

/** Whether `x` and `y` may be recorded as compatible now; undefined when they may (or already are). */
export const compatibleViolation = (model: GraphModel, x: string, y: string): CompatibleRule | undefined => {
  const facts = byId(model)
  if (x === y) return "same_fact"
  if (!facts.has(x) || !facts.has(y)) return "fact_not_found"
  if ((model.compatible ?? []).some((c) => pairKey(c.a, c.b) === pairKey(x, y))) return undefined
  // Siblings: they build on a fact in common (either may build on others too).
  const py = parentsOf(facts.get(y))
  if (!parentsOf(facts.get(x)).some((p) => py.includes(p))) return "not_siblings"
  if (supersedesPath(model, x, y) || supersedesPath(model, y, x)) return "already_superseded"
  return undefined
}
