import type { GraphModel } from "./graph.js"

/**
 * A thread: the facts connected to `id` through first parents (`parentId`), either direction, `id`
 * included; empty when there is no such fact. A thread is one line of conversation: a fact that also
 * builds on another thread's fact depends on it (staleness, context, impact) but does not join the
 * two, else threads would grow without bound; nor does SUPERSEDES join threads. As of a time: apply
 * `asOf` to the model first, then take the thread.
 */
export const thread = (model: GraphModel, id: string): Set<string> => {
  if (!model.facts.some((f) => f.id === id)) return new Set()
  const near = new Map<string, Array<string>>()
  const link = (a: string, b: string) => near.set(a, [...(near.get(a) ?? []), b])
  const known = new Set(model.facts.map((f) => f.id))
  for (const f of model.facts) {
    if (f.parentId !== null && known.has(f.parentId)) {
      link(f.id, f.parentId)
      link(f.parentId, f.id)
    }
  }
  const seen = new Set([id])
  const queue = [id]
  while (queue.length > 0) {
    for (const next of near.get(queue.pop()!) ?? []) {
      if (!seen.has(next)) {
        seen.add(next)
        queue.push(next)
      }
    }
  }
  return seen
}

/** The model with only the facts of a set, and the records among them (a thread-scoped read of it). */
export const within = (model: GraphModel, ids: ReadonlySet<string>): GraphModel => ({
  facts: model.facts.filter((f) => ids.has(f.id)),
  supersedes: model.supersedes.filter((r) => ids.has(r.loser)),
  compatible: (model.compatible ?? []).filter((c) => ids.has(c.a) && ids.has(c.b)),
  retractions: (model.retractions ?? []).filter((r) => ids.has(r.fact))
})
