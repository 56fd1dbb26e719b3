import { termsOf } from "../terms.js"
import { childrenOf, type GraphModel, type ModelFact, normaliseContent, pairKey } from "./graph.js"
import { retractedIds, supersededIds } from "./status.js"

/**
 * How many stemmed content terms two facts must share for a choice to fork with a sibling of another
 * kind or another choice.
 */
export const forkSharedTerms = 2

/**
 * Whether a stored term (search's terms, domain/terms.ts: question words and stopwords left out)
 * counts for the fork rule: two characters or more, and not a number ("pool size 20" and "note 20"
 * say nothing alike).
 */
export const isForkTerm = (t: string): boolean => t.length >= 2 && !/^[0-9]+$/.test(t)

/** The distinct stemmed content terms of a text that the fork rule counts. */
export const forkTermsOf = (text: string): Array<string> => [...new Set(termsOf(text).filter(isForkTerm))]

/** The distinct stemmed content terms two texts share. */
export const sharedTerms = (x: string, y: string): number => {
  const mine = new Set(forkTermsOf(x))
  return forkTermsOf(y).filter((t) => mine.has(t)).length
}

/** Whether one of the two names the other in `contradicts`. */
export const namesEither = (x: ModelFact, y: ModelFact): boolean =>
  (x.contradicts ?? []).includes(y.id) || (y.contradicts ?? []).includes(x.id)

/**
 * Whether two siblings disagree (a fork pair). Never when they say the same thing once normalised
 * (a duplicate). Otherwise when one names the other in `contradicts`; when both are kind-less (the
 * seed's rule: every differing sibling forks); or when one of them is a `choice` and they share at
 * least `forkSharedTerms` stemmed content terms, whatever the other's kind. So a detail forks only
 * with what it names or with a choice about the same thing, and a choice never hides behind a
 * sibling's label; a kind-less fact beside a choice forks only on shared terms.
 */
export const disagree = (x: ModelFact, y: ModelFact): boolean => {
  if (normaliseContent(x.content) === normaliseContent(y.content)) return false
  if (namesEither(x, y)) return true
  const xk = x.kind ?? null
  const yk = y.kind ?? null
  if (xk === null && yk === null) return true
  return (xk === "choice" || yk === "choice") && sharedTerms(x.content, y.content) >= forkSharedTerms
}

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
