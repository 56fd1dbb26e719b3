import { byId, childrenOf, type GraphModel } from "./graph.js"
import { ancestors } from "./status.js"

/** Descendants through BUILDS_ON with their distance (1 = direct child), by distance then age. */
export const impact = (model: GraphModel, id: string): Array<{ id: string; distance: number }> => {
  const children = childrenOf(model)
  const out: Array<{ id: string; distance: number; createdAt: number }> = []
  const seen = new Set<string>([id])
  let frontier = [id]
  for (let distance = 1; frontier.length > 0; distance++) {
    const next: Array<string> = []
    for (const f of frontier) {
      for (const child of children.get(f) ?? []) {
        if (seen.has(child.id)) continue
        seen.add(child.id)
        out.push({ id: child.id, distance, createdAt: child.createdAt })
        next.push(child.id)
      }
    }
    frontier = next
  }
  return out
    .sort((x, y) => x.distance - y.distance || x.createdAt - y.createdAt)
    .map(({ distance, id }) => ({ id, distance }))
}

/**
 * What the fact stands on, oldest first, the fact last: on a chain, the root down to the fact. A
 * parent is older than what builds on it, so on several parents too each fact comes after all it builds on.
 */
export const context = (model: GraphModel, id: string): Array<string> => {
  const facts = byId(model)
  return ancestors(model, id)
    .sort((x, y) => (facts.get(x)?.createdAt ?? 0) - (facts.get(y)?.createdAt ?? 0))
    .concat(id)
}
