import { childrenOf, type GraphModel } from "./graph.js"
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

/** The chain from the root down to the fact, the fact last. */
export const context = (model: GraphModel, id: string): Array<string> => [...ancestors(model, id)].reverse().concat(id)
