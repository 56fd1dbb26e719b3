import { type ChildStamp, marksFork } from "../../domain/importForks.js"

/**
 * What an import wrote, kept in its own process so a batch reads back none of it (an import runs one
 * statement at a time on its graph, and stops at the first that fails, so this is what the graph
 * holds of the import's facts). Each fact's place (merge_of, merge_depth, root: what a child of it
 * stores) serves both kinds of import. Into an empty graph (`fresh`) every child of every parent is
 * one of the file's, so the fork marks' inputs (domain/importForks.ts) come from here as well: a
 * merge reads them from the graph, where facts of its own may be.
 */
export interface Place {
  readonly mergeOf: string | null
  readonly depth: number
  readonly root: string
}

/** A child as marksFork reads it, its retraction stamp set when one lands. */
type Child = { -readonly [K in keyof ChildStamp]: ChildStamp[K] }

export interface ImportMemory {
  readonly fresh: boolean
  readonly places: Map<string, Place>
  /** Fresh only: each parent's children (first parent and extra ones). */
  readonly kids: Map<string, Array<Child>>
  readonly child: Map<string, Child>
  /** Fresh only: parents with a choice or a `contradicts` among their children (only those can have FORKS pairs). */
  readonly special: Set<string>
  /** Fresh only: parents whose kind-less children this import marked a fork. */
  readonly marked: Set<string>
}

export const importMemory = (fresh: boolean): ImportMemory => ({
  fresh,
  places: new Map(),
  kids: new Map(),
  child: new Map(),
  special: new Set(),
  marked: new Set()
})

export interface WrittenFact {
  readonly id: string
  readonly parents: ReadonlyArray<string>
  readonly place: Place
  /** The normalised text's key (contentKey): equal exactly when the texts are. */
  readonly hash: string
  readonly kind: string | null
  readonly contradicts: boolean
  readonly createdAt: number
}

/** After a batch's statement landed: its facts. */
export const rememberFacts = (memory: ImportMemory, facts: ReadonlyArray<WrittenFact>) => {
  for (const f of facts) {
    memory.places.set(f.id, f.place)
    if (!memory.fresh) continue
    const c: Child = {
      id: f.id,
      norm: f.hash,
      kinded: (f.kind ?? "") !== "",
      createdAt: f.createdAt,
      retractedAt: null
    }
    memory.child.set(f.id, c)
    for (const p of f.parents) {
      const kids = memory.kids.get(p)
      if (kids === undefined) memory.kids.set(p, [c])
      else kids.push(c)
      if (f.kind === "choice" || f.contradicts) memory.special.add(p)
    }
  }
}

/** After a retraction landed (fresh: one a fact, the file's check sees to it). */
export const rememberRetraction = (memory: ImportMemory, factId: string, at: number) => {
  const c = memory.child.get(factId)
  if (c !== undefined && c.retractedAt === null) c.retractedAt = at
}

/**
 * Fresh only: the batch's parents its kind-less children now make forks and no mark of this import
 * names yet (taken as marked), and the parents whose FORKS pairs linkForksQuery must look at.
 */
export const forksOfBatch = (
  memory: ImportMemory,
  batch: ReadonlyArray<{ readonly id: string; readonly parents: ReadonlyArray<string> }>
) => {
  const parents = [...new Set(batch.flatMap((f) => f.parents))]
  const fromFile = new Set(batch.map((f) => f.id))
  const marks = parents.filter((p) => !memory.marked.has(p) && marksFork(memory.kids.get(p) ?? [], fromFile))
  for (const p of marks) memory.marked.add(p)
  return { marks, linked: parents.filter((p) => memory.special.has(p)) }
}
