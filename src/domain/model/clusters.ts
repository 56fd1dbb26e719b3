import type { GraphModel, ModelFact } from "./graph.js"

/**
 * Connected components over first parents (`parentId`) and SUPERSEDES, direction ignored: largest
 * first, ties by the oldest fact; each component's facts oldest first. Extra parents join nothing,
 * as in threads (thread.ts): a dependency on another line of conversation does not merge the two.
 */
export const clusters = (model: GraphModel): Array<Array<string>> => {
  const parent = new Map(model.facts.map((f) => [f.id, f.id]))
  const find = (x: string): string => {
    let root = x
    while (parent.get(root) !== root) root = parent.get(root)!
    parent.set(x, root)
    return root
  }
  const union = (a: string, b: string) => {
    if (!parent.has(a) || !parent.has(b)) return
    parent.set(find(a), find(b))
  }
  for (const f of model.facts) if (f.parentId !== null) union(f.id, f.parentId)
  for (const r of model.supersedes) union(r.winner, r.loser)
  const groups = new Map<string, Array<ModelFact>>()
  for (const f of model.facts) {
    const key = find(f.id)
    const list = groups.get(key) ?? []
    list.push(f)
    groups.set(key, list)
  }
  return [...groups.values()]
    .map((g) => g.sort((x, y) => x.createdAt - y.createdAt))
    .sort((x, y) => y.length - x.length || x[0]!.createdAt - y[0]!.createdAt)
    .map((g) => g.map((f) => f.id))
}
