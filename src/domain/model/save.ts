import { comparedShown, forkSiblingsShown } from "../rules.js"
import { disagree } from "./conflicts.js"
import type { GraphModel, ModelKind } from "./graph.js"
import { normaliseContent, parentsOf } from "./graph.js"
import { retractedIds } from "./status.js"

/**
 * What saving `content` under `parentId` reports: the most recent siblings it disagrees with
 * (oldest first) and how many in all, and the oldest same-content sibling (the fork rule is
 * conflicts.ts `disagree`). A choice also reports the siblings it was compared with and does not
 * fork with (`compared`, the most recent, oldest first; `comparedTotal` all of them), so its writer
 * sees what the rule let pass. A retracted sibling is neither a duplicate nor a fork sibling nor
 * compared, and neither is `revised`, the fact a revision supersedes in the same write (it is
 * decided, not open).
 */
export const saveOutcome = (
  model: GraphModel,
  parentId: string | null,
  content: string,
  kind: ModelKind | null = null,
  revised: string | null = null,
  contradicts: ReadonlyArray<string> = []
): SaveOutcome => {
  if (parentId === null) {
    return { forkSiblings: [], siblingsTotal: 0, duplicateOf: null, compared: [], comparedTotal: 0 }
  }
  const retracted = retractedIds(model)
  const siblings = model.facts
    .filter((f) => parentsOf(f).includes(parentId) && !retracted.has(f.id) && f.id !== revised)
    .sort((x, y) => x.createdAt - y.createdAt)
  const self = { id: "", content, parentId, createdAt: 0, kind, contradicts }
  const differing = siblings.filter((s) => disagree(self, s)).map((s) => s.id)
  const norm = normaliseContent(content)
  const passed = kind !== "choice" ?
    [] :
    siblings.filter((s) => normaliseContent(s.content) !== norm && !differing.includes(s.id)).map((s) => s.id)
  return {
    forkSiblings: differing.slice(-forkSiblingsShown),
    siblingsTotal: differing.length,
    duplicateOf: siblings.find((s) => normaliseContent(s.content) === norm)?.id ?? null,
    compared: passed.slice(-comparedShown),
    comparedTotal: passed.length
  }
}

export interface SaveOutcome {
  readonly forkSiblings: Array<string>
  readonly siblingsTotal: number
  readonly duplicateOf: string | null
  readonly compared: Array<string>
  readonly comparedTotal: number
}

/**
 * A save under several parents (builds_on) reports each parent apart, in the order given: a fact
 * is a sibling of every other child of each parent it builds on, and may fork or repeat under each.
 */
export const saveOutcomes = (
  model: GraphModel,
  parentIds: ReadonlyArray<string>,
  content: string,
  kind: ModelKind | null = null,
  revised: string | null = null,
  contradicts: ReadonlyArray<string> = []
): Array<SaveOutcome & { parent: string }> =>
  parentIds.map((parent) => ({ parent, ...saveOutcome(model, parent, content, kind, revised, contradicts) }))

/**
 * How many facts with several parents lie on the deepest line above and including a fact: a merge
 * counts itself and every merge above it through any parent, a one-parent fact passes on its
 * parent's. A save whose depth would pass `mergeDepthCap` is refused: a walk down then meets at most
 * that many merges on any line, so it reads each fact at most that many times
 * (docs/design/several-parents.md).
 */
export const mergeDepth = (model: GraphModel, parentIds: ReadonlyArray<string>): number => {
  const facts = new Map(model.facts.map((f) => [f.id, f]))
  const memo = new Map<string, number>()
  const depthOf = (id: string): number => {
    const known = memo.get(id)
    if (known !== undefined) return known
    const parents = parentsOf(facts.get(id))
    const d = parents.length === 0 ? 0 : Math.max(...parents.map(depthOf)) + (parents.length > 1 ? 1 : 0)
    memo.set(id, d)
    return d
  }
  return parentIds.length === 0 ? 0 : Math.max(...parentIds.map(depthOf)) + (parentIds.length > 1 ? 1 : 0)
}
