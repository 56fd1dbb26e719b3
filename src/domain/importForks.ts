/**
 * Whether an import marks a parent a fork (layers/transfer/importRecords.ts), as the saves of its
 * children would have: a child marks it when it says something else than a sibling saved before it
 * that was not retracted by then, kind-less children only (a pair with a choice or a `contradicts`
 * in it is a FORKS edge instead: layers/factStore/forkRule.ts). Decided from
 * the stamps alone (each child's, and its retraction's), so it does not matter which of the file's
 * records are in the graph yet, and a rerun that finds the children there marks the same. Only a
 * pair with a child of the file counts: a merge never marks what the graph's own saves did not.
 * One pass in stamp order, keeping the two texts whose siblings stay unretracted longest.
 */
export interface ChildStamp {
  readonly id: string
  readonly norm: string
  /** Saved with a kind: its pairs are FORKS edges, not this grouped count. */
  readonly kinded: boolean
  readonly createdAt: number
  /** When it was retracted (null: never). */
  readonly retractedAt: number | null
}

interface Best {
  norm: string
  until: number
}

/** The latest `until` among the texts other than `norm` (the top two cover every text). */
const otherThan = (top: ReadonlyArray<Best>, norm: string): number =>
  top.find((b) => b.norm !== norm)?.until ?? -Infinity

const raise = (top: Array<Best>, norm: string, until: number) => {
  const at = top.findIndex((b) => b.norm === norm)
  if (at >= 0) top[at]!.until = Math.max(top[at]!.until, until)
  else top.push({ norm, until })
  top.sort((a, b) => b.until - a.until)
  if (top.length > 2) top.length = 2
}

export const marksFork = (children: ReadonlyArray<ChildStamp>, fromFile: ReadonlySet<string>): boolean => {
  const kids = children.filter((c) => !c.kinded).sort((a, b) =>
    a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  )
  const all: Array<Best> = []
  const filed: Array<Best> = []
  for (const c of kids) {
    const fresh = fromFile.has(c.id)
    // A sibling counts when it was not retracted at this child's stamp.
    if ((fresh && otherThan(all, c.norm) > c.createdAt) || otherThan(filed, c.norm) > c.createdAt) return true
    const until = c.retractedAt ?? Infinity
    raise(all, c.norm, until)
    if (fresh) raise(filed, c.norm, until)
  }
  return false
}
