/**
 * Whether a parent gets a ForkMark: the one rule of every writer. A save marks its parent when its
 * new child forms a fork pair (domain/model/conflicts.ts `disagree`) with a sibling saved before it
 * that was not retracted by then and is not the fact the save supersedes (a revision's old fact is
 * decided, not open): layers/factStore/siblingPicture.ts's `differing`, in the save's statement. An
 * import (layers/transfer/importRecords.ts), which did not see the saves, applies the same rule to
 * the stamps (each child's, its retraction's, the fact its own save revised), so it does not matter
 * which of the file's records are in the graph yet, and a rerun marks the same. Only a pair with a
 * child of the file counts: a merge never marks what the graph's own saves did not. The mark is
 * written by one Cypher fragment (forkWindow.ts `writeMark`); only its window differs: a save knows
 * the stamp it opens at, an import opens it at 0 and reads every window from the edges at its end.
 */
export interface ChildStamp {
  readonly id: string
  readonly norm: string
  /** Saved with a kind: its pairs are FORKS edges (`pairedWith`), not the grouped kind-less count. */
  readonly kinded: boolean
  readonly createdAt: number
  /** When it was retracted (null: never). */
  readonly retractedAt: number | null
  /** The fact its save superseded (a revision), null for none. */
  readonly revises: string | null
  /** The facts it shares a FORKS edge with, either way (layers/factStore/forkRule.ts). */
  readonly pairedWith: ReadonlyArray<string>
}

/** Whether `s` was a sibling `c`'s save compared with: saved before it, not retracted then, not the fact it revises. */
const comparedAt = (s: ChildStamp, c: ChildStamp): boolean =>
  s.createdAt < c.createdAt && (s.retractedAt === null || s.retractedAt > c.createdAt) && s.id !== c.revises

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

/**
 * The kind-less pairs: one pass in stamp order keeping the two texts whose siblings stay
 * unretracted longest, never a pairing of siblings; a revision found forked there is checked
 * against its siblings one by one, without the fact it revised.
 */
const plainMarks = (children: ReadonlyArray<ChildStamp>, fromFile: ReadonlySet<string>): boolean => {
  const kids = children.filter((c) => !c.kinded).sort((a, b) =>
    a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  )
  const all: Array<Best> = []
  const filed: Array<Best> = []
  for (const c of kids) {
    const fresh = fromFile.has(c.id)
    if (
      ((fresh && otherThan(all, c.norm) > c.createdAt) || otherThan(filed, c.norm) > c.createdAt) &&
      (c.revises === null ||
        kids.some((s) => (fresh || fromFile.has(s.id)) && s.norm !== c.norm && comparedAt(s, c)))
    ) return true
    const until = c.retractedAt ?? Infinity
    raise(all, c.norm, until)
    if (fresh) raise(filed, c.norm, until)
  }
  return false
}

/** The pairs kept as FORKS edges: each edge between two of the children, seen from its later end. */
const pairedMarks = (children: ReadonlyArray<ChildStamp>, fromFile: ReadonlySet<string>): boolean => {
  const byId = new Map(children.map((c) => [c.id, c]))
  return children.some((c) =>
    c.pairedWith.some((id) => {
      const s = byId.get(id)
      return s !== undefined && (fromFile.has(c.id) || fromFile.has(s.id)) && comparedAt(s, c)
    })
  )
}

/** Whether the saves of a parent's children (those of `fromFile` or paired with one) mark it. */
export const marksFork = (children: ReadonlyArray<ChildStamp>, fromFile: ReadonlySet<string>): boolean =>
  pairedMarks(children, fromFile) || plainMarks(children, fromFile)
