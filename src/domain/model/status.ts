import { byId, type GraphModel, parentsOf, type Status } from "./graph.js"

/** A fact's status, and the memory as it stood at a time (as_of). */

export const supersededIds = (model: GraphModel): Set<string> => new Set(model.supersedes.map((r) => r.loser))

export const retractedIds = (model: GraphModel): Set<string> => new Set((model.retractions ?? []).map((r) => r.fact))

/**
 * Ancestors through BUILDS_ON, every parent followed, each once: nearest first (by the fewest
 * steps up), ties oldest first. On a chain: parent, grandparent, ... to the root.
 */
export const ancestors = (model: GraphModel, id: string): Array<string> => {
  const facts = byId(model)
  const seen = new Set([id])
  const out: Array<string> = []
  let level = [id]
  while (level.length > 0) {
    const next = [...new Set(level.flatMap((f) => parentsOf(facts.get(f))))]
      .filter((p) => !seen.has(p))
      .sort((x, y) => (facts.get(x)?.createdAt ?? 0) - (facts.get(y)?.createdAt ?? 0))
    for (const p of next) seen.add(p)
    out.push(...next)
    level = next
  }
  return out
}

/** Every stamp of a decision or retraction on each fact (unstamped: always, -Infinity). */
export const invalidations = (model: GraphModel): Map<string, Array<number>> => {
  const out = new Map<string, Array<number>>()
  const note = (id: string, at: number | undefined) => out.set(id, [...(out.get(id) ?? []), at ?? -Infinity])
  for (const s of model.supersedes) note(s.loser, s.createdAt)
  for (const r of model.retractions ?? []) note(r.fact, r.createdAt)
  return out
}

/**
 * The stamps that make a fact stale: each decision or retraction stamped s on an ancestor u that
 * some path from u down to the fact lets through. A confirmation stamped after s, of a fact x on
 * the path below u (the fact itself included), blocks s there, unless a merge (a fact on two or
 * more parents) lies below x on the path, down to the fact, saved at or before the confirmation:
 * that merge stood on more than x when x was confirmed, so x's confirmation does not vouch for it
 * (it needs its own); a merge saved later takes its parents' state like any fact. Without merges:
 * a stamp counts when some path up to it passes no fact confirmed after it. Each fact's set is
 * computed once a call, parents before children (models are built by appending: nothing is cached).
 */
export const staleReasons = (model: GraphModel, id: string): ReadonlyArray<number> => reasonTable(model).get(id) ?? []

const reasonTable = (model: GraphModel): Map<string, ReadonlyArray<number>> => {
  const facts = byId(model)
  const invalidated = invalidations(model)
  const confirmed = new Map<string, Array<number>>()
  for (const c of model.confirmations ?? []) confirmed.set(c.fact, [...(confirmed.get(c.fact) ?? []), c.createdAt])
  // Per fact: each stamp above it with its blocker, the smallest confirmation still blocking it
  // along the path up (Infinity: none, the stamp counts). Down a path a merge drops the blockers at
  // or after its save (dropping the smallest drops all) and a confirmation adds one; both keep
  // blockers in order, so of several paths the one with the largest blocker lets the stamp through
  // if any does: it is the one kept.
  const blockers = new Map<string, Map<number, number>>()
  // Depth first without recursion (a chain may be deep): a fact is done once its parents are.
  const onStack = new Set<string>()
  for (const start of model.facts) {
    const stack = [start.id]
    while (stack.length > 0) {
      const f = stack[stack.length - 1]!
      if (blockers.has(f)) {
        stack.pop()
        continue
      }
      const fact = facts.get(f)
      const parents = parentsOf(fact)
      // A cycle (none in a graph Relay writes) is broken at the repeat: that parent counts for nothing.
      const pending = parents.filter((p) => facts.has(p) && !blockers.has(p) && !onStack.has(p))
      if (pending.length > 0 && !onStack.has(f)) {
        onStack.add(f)
        stack.push(...pending)
        continue
      }
      onStack.delete(f)
      stack.pop()
      const state = new Map<number, number>()
      const keep = (s: number, b: number) => state.set(s, Math.max(state.get(s) ?? -Infinity, b))
      for (const p of parents) {
        for (const s of invalidated.get(p) ?? []) keep(s, Infinity)
        for (const [s, b] of blockers.get(p) ?? []) keep(s, b)
      }
      const merge = parents.length >= 2
      const own = confirmed.get(f) ?? []
      for (const [s, b] of state) {
        const left = merge && b >= fact!.createdAt ? Infinity : b
        state.set(s, Math.min(left, ...own.filter((c) => c > s)))
      }
      blockers.set(f, state)
    }
  }
  return new Map(
    [...blockers].map(([f, state]) => [f, [...state].filter(([, b]) => b === Infinity).map(([s]) => s)])
  )
}

/** Stale: some ancestor is superseded or retracted, and no confirmation since covers it. */
export const isStale = (model: GraphModel, id: string): boolean => staleReasons(model, id).length > 0

/** Precedence: retracted > superseded > stale > active. */
export const status = (model: GraphModel, id: string): Status =>
  retractedIds(model).has(id)
    ? "retracted"
    : supersededIds(model).has(id)
    ? "superseded"
    : isStale(model, id)
    ? "stale"
    : "active"

/**
 * The memory as it stood at `time` (as_of): what was stamped after it is invisible (facts,
 * decisions, compatible records, retractions, confirmations); every rule then applies to what is left.
 */
export const asOf = (model: GraphModel, time: number): GraphModel => {
  const seen = (x: { readonly createdAt?: number }) => x.createdAt === undefined || x.createdAt <= time
  return {
    facts: model.facts.filter(seen),
    supersedes: model.supersedes.filter(seen),
    compatible: (model.compatible ?? []).filter(seen),
    retractions: (model.retractions ?? []).filter(seen),
    confirmations: (model.confirmations ?? []).filter(seen)
  }
}

/** relay_get_current_state: the facts of the given statuses (null: all), newest first. */
export const currentState = (model: GraphModel, statuses: ReadonlyArray<Status> | null): Array<string> =>
  [...model.facts]
    .sort((x, y) => y.createdAt - x.createdAt)
    .filter((f) => statuses === null || statuses.includes(status(model, f.id)))
    .map((f) => f.id)
