import { childrenOf, type GraphModel, type ModelFact, normaliseContent, pairKey } from "./graph.js"
import { retractedIds, supersededIds } from "./status.js"

/**
 * Whether two siblings disagree: they say different things (once normalised) and neither is a
 * detail. A detail adds to its parent and is never in a conflict; two choices, two kind-less facts,
 * or one of each that differ are (kind-less is the seed's rule: every differing sibling forks).
 */
export const disagree = (x: ModelFact, y: ModelFact): boolean =>
  x.kind !== "detail" && y.kind !== "detail" && normaliseContent(x.content) !== normaliseContent(y.content)

export interface ModelConflict {
  readonly parent: string
  /** The children in some open pair, newest first. */
  readonly children: ReadonlyArray<string>
}

/**
 * Open conflicts, one per forked parent. The children that take part are those neither superseded
 * nor retracted; two of them form an open pair when they disagree (above) and no compatible record
 * joins them. A parent is listed when it has an open pair, with exactly the children that are in
 * some open pair, newest first. The parent whose newest listed child is newest comes first, and
 * of two with the same newest child (a merge under both), the newer parent (created_at is unique,
 * so the order is total).
 */
export const openConflicts = (model: GraphModel): Array<ModelConflict> => {
  const superseded = supersededIds(model)
  const retracted = retractedIds(model)
  const compatible = new Set((model.compatible ?? []).map((c) => pairKey(c.a, c.b)))
  const out: Array<{ parent: string; listed: Array<ModelFact> }> = []
  for (const [parent, kids] of childrenOf(model)) {
    const live = kids.filter((k) => !superseded.has(k.id) && !retracted.has(k.id))
    const listed = live
      .filter((x) => live.some((y) => disagree(x, y) && !compatible.has(pairKey(x.id, y.id))))
      .sort((x, y) => y.createdAt - x.createdAt)
    if (listed.length > 0) out.push({ parent, listed })
  }
  const stamp = new Map(model.facts.map((f) => [f.id, f.createdAt]))
  return out
    // A merge may be the newest listed child of two parents: then the newer parent first.
    .sort((x, y) => y.listed[0]!.createdAt - x.listed[0]!.createdAt || stamp.get(y.parent)! - stamp.get(x.parent)!)
    .map(({ listed, parent }) => ({ parent, children: listed.map((k) => k.id) }))
}
