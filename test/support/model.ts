import type { CompatibleRule, ResolutionRule } from "../../src/domain/rules.js"
import { forkSiblingsShown } from "../../src/domain/rules.js"

/**
 * The contract's rules over a plain in-memory picture of the graph: the oracle the property tests
 * hold the FalkorDB queries to on generated graphs. Written apart from src/ (content normalisation
 * included), so a rule got wrong there is not got wrong here the same way.
 */

/**
 * The contract's normalised content (trimmed, whitespace runs as one space, lowercase), spelled
 * differently from src/domain/content.ts on purpose: words split on whitespace, rejoined.
 */
export const normaliseContent = (content: string): string =>
  content.split(/\s+/).filter((word) => word.length > 0).join(" ").toLowerCase()
export interface ModelFact {
  readonly id: string
  readonly content: string
  readonly parentId: string | null
  /** Strictly increasing in commit order, as Relay stamps it. */
  readonly createdAt: number
  /** Only briefings read it (a reader does not see its own writes). */
  readonly writtenBy?: string
}

export interface ModelResolution {
  readonly winner: string
  readonly loser: string
  /** When the decision was stamped; only `asOf` reads it (left out: always there). */
  readonly createdAt?: number
  /** Only briefings read it. */
  readonly resolvedBy?: string
}

/** Two siblings recorded as compatible: both stand, and their pair is no conflict. */
export interface ModelCompatible {
  readonly a: string
  readonly b: string
  readonly createdAt?: number
}

/** A fact withdrawn (relay_retract_fact); at most one per fact. */
export interface ModelRetraction {
  readonly fact: string
  readonly createdAt: number
  /** Who retracted it; briefings leave out the reader's own. */
  readonly retractedBy?: string
}

export interface GraphModel {
  readonly facts: ReadonlyArray<ModelFact>
  readonly supersedes: ReadonlyArray<ModelResolution>
  readonly compatible?: ReadonlyArray<ModelCompatible>
  readonly retractions?: ReadonlyArray<ModelRetraction>
}

export type Status = "active" | "superseded" | "stale" | "retracted"

const byId = (model: GraphModel) => new Map(model.facts.map((f) => [f.id, f]))

const childrenOf = (model: GraphModel): Map<string, Array<ModelFact>> => {
  const children = new Map<string, Array<ModelFact>>()
  for (const f of model.facts) {
    if (f.parentId === null) continue
    const list = children.get(f.parentId) ?? []
    list.push(f)
    children.set(f.parentId, list)
  }
  return children
}

export const supersededIds = (model: GraphModel): Set<string> => new Set(model.supersedes.map((r) => r.loser))

/** Ancestors through BUILDS_ON, nearest first. */
export const ancestors = (model: GraphModel, id: string): Array<string> => {
  const facts = byId(model)
  const out: Array<string> = []
  let parent = facts.get(id)?.parentId ?? null
  while (parent !== null && !out.includes(parent)) {
    out.push(parent)
    parent = facts.get(parent)?.parentId ?? null
  }
  return out
}

export const retractedIds = (model: GraphModel): Set<string> => new Set((model.retractions ?? []).map((r) => r.fact))

/** Stale: some ancestor is superseded or retracted. */
export const isStale = (model: GraphModel, id: string): boolean => {
  const superseded = supersededIds(model)
  const retracted = retractedIds(model)
  return ancestors(model, id).some((a) => superseded.has(a) || retracted.has(a))
}

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
 * decisions, compatible records, retractions); every rule then applies to what is left as usual.
 */
export const asOf = (model: GraphModel, time: number): GraphModel => {
  const seen = (x: { readonly createdAt?: number }) => x.createdAt === undefined || x.createdAt <= time
  return {
    facts: model.facts.filter(seen),
    supersedes: model.supersedes.filter(seen),
    compatible: (model.compatible ?? []).filter(seen),
    retractions: (model.retractions ?? []).filter(seen)
  }
}

/** relay_get_current_state: the facts of the given statuses (null: all), newest first. */
export const currentState = (model: GraphModel, statuses: ReadonlyArray<Status> | null): Array<string> =>
  [...model.facts]
    .sort((x, y) => y.createdAt - x.createdAt)
    .filter((f) => statuses === null || statuses.includes(status(model, f.id)))
    .map((f) => f.id)

export interface ModelConflict {
  readonly parent: string
  /** The children in some open pair, newest first. */
  readonly children: ReadonlyArray<string>
}

const pairKey = (x: string, y: string) => (x < y ? `${x} ${y}` : `${y} ${x}`)

/**
 * Open conflicts, one per forked parent. The children that take part are those neither superseded
 * nor retracted; two of them form an open pair when they say different things (once normalised) and
 * no compatible record joins them. A parent is listed when it has an open pair, with exactly the
 * children that are in some open pair, newest first. The parent whose newest listed child is newest
 * comes first (created_at is unique, so the order is total).
 */
export const openConflicts = (model: GraphModel): Array<ModelConflict> => {
  const superseded = supersededIds(model)
  const retracted = retractedIds(model)
  const compatible = new Set((model.compatible ?? []).map((c) => pairKey(c.a, c.b)))
  const out: Array<{ parent: string; listed: Array<ModelFact> }> = []
  for (const [parent, kids] of childrenOf(model)) {
    const live = kids.filter((k) => !superseded.has(k.id) && !retracted.has(k.id))
    const listed = live
      .filter((x) =>
        live.some((y) =>
          normaliseContent(x.content) !== normaliseContent(y.content) && !compatible.has(pairKey(x.id, y.id))
        )
      )
      .sort((x, y) => y.createdAt - x.createdAt)
    if (listed.length > 0) out.push({ parent, listed })
  }
  return out
    .sort((x, y) => y.listed[0]!.createdAt - x.listed[0]!.createdAt)
    .map(({ listed, parent }) => ({ parent, children: listed.map((k) => k.id) }))
}

/** Whether `x` and `y` may be recorded as compatible now; undefined when they may (or already are). */
export const compatibleViolation = (model: GraphModel, x: string, y: string): CompatibleRule | undefined => {
  const facts = byId(model)
  if (x === y) return "same_fact"
  if (!facts.has(x) || !facts.has(y)) return "fact_not_found"
  if ((model.compatible ?? []).some((c) => pairKey(c.a, c.b) === pairKey(x, y))) return undefined
  const px = facts.get(x)!.parentId
  if (px === null || px !== facts.get(y)!.parentId) return "not_siblings"
  if (supersedesPath(model, x, y) || supersedesPath(model, y, x)) return "already_superseded"
  return undefined
}

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

/** Whether winner may supersede loser now; undefined when the resolution is valid. */
export const resolutionViolation = (model: GraphModel, winner: string, loser: string): ResolutionRule | undefined => {
  const facts = byId(model)
  if (winner === loser) return "winner_is_loser"
  if (!facts.has(winner)) return "winner_not_found"
  if (!facts.has(loser)) return "loser_not_found"
  if (model.supersedes.some((r) => r.winner === winner && r.loser === loser)) return undefined
  if (supersedesPath(model, loser, winner)) return "supersedes_cycle"
  if (ancestors(model, winner).includes(loser) || ancestors(model, loser).includes(winner)) {
    return "builds_on_each_other"
  }
  return undefined
}

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

/**
 * What saving `content` under `parentId` reports: the most recent differing siblings (oldest first)
 * and how many differ in all, and the oldest same-content sibling.
 */
export const saveOutcome = (
  model: GraphModel,
  parentId: string | null,
  content: string
): { forkSiblings: Array<string>; siblingsTotal: number; duplicateOf: string | null } => {
  if (parentId === null) return { forkSiblings: [], siblingsTotal: 0, duplicateOf: null }
  const norm = normaliseContent(content)
  // Retracted siblings count as neither a duplicate nor a differing sibling.
  const retracted = retractedIds(model)
  const siblings = model.facts.filter((f) => f.parentId === parentId && !retracted.has(f.id))
    .sort((x, y) => x.createdAt - y.createdAt)
  const differing = siblings.filter((s) => normaliseContent(s.content) !== norm).map((s) => s.id)
  return {
    forkSiblings: differing.slice(-forkSiblingsShown),
    siblingsTotal: differing.length,
    duplicateOf: siblings.find((s) => normaliseContent(s.content) === norm)?.id ?? null
  }
}

/**
 * The commit-order stamp of a write: the Clock's now, or just past the graph's last stamp when the
 * Clock has not moved past it. A briefing's fence takes `max(now, last)` and makes it the last stamp.
 */
export const nextStamp = (last: number | null, now: number): number => last === null || now > last ? now : last + 1

/**
 * Connected components over BUILDS_ON and SUPERSEDES, direction ignored: largest first, ties by the
 * oldest fact; each component's facts oldest first.
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
