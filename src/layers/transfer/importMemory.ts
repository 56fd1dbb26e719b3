import { type ChildStamp, marksFork } from "../../domain/forkMarks.js"
import { disagree } from "../../domain/model/conflicts.js"
import type { ModelFact, ModelKind } from "../../domain/model/graph.js"

/**
 * What an import wrote, kept in its own process so a batch reads back none of it (an import runs one
 * statement at a time on its graph, and stops at the first that fails, so this is what the graph
 * holds of the import's facts). Each fact's place (merge_of, merge_depth, root: what a child of it
 * stores) serves both kinds of import. Into an empty graph (`fresh`) every child of every parent is
 * one of the file's, so the fork marks' inputs (domain/forkMarks.ts) come from here as well: a
 * merge reads them from the graph, where facts of its own may be.
 */
export interface Place {
  readonly mergeOf: string | null
  readonly depth: number
  readonly root: string
}

/** A child as marksFork reads it, its retraction stamp set when one lands, its FORKS pairs as they come. */
type Child = { -readonly [K in keyof ChildStamp]: ChildStamp[K] } & { pairedWith: Array<string> }

export interface ImportMemory {
  readonly fresh: boolean
  readonly places: Map<string, Place>
  /** Fresh only: each parent's children (first parent and extra ones). */
  readonly kids: Map<string, Array<Child>>
  readonly child: Map<string, Child>
  /** Fresh only: parents with a choice or a `contradicts` among their children (only those can have FORKS pairs). */
  readonly special: Set<string>
  /** Fresh only: each such parent's children with a choice or a `contradicts`. */
  readonly specialKids: Map<string, Array<Child>>
  /** Fresh only: parents this import marked a fork. */
  readonly marked: Set<string>
  /** Fresh only: each fact as the fork rule reads it (domain/model/conflicts.ts disagree). */
  readonly facts: Map<string, ModelFact>
}

export const importMemory = (fresh: boolean): ImportMemory => ({
  fresh,
  places: new Map(),
  kids: new Map(),
  child: new Map(),
  special: new Set(),
  specialKids: new Map(),
  marked: new Set(),
  facts: new Map()
})

export interface WrittenFact {
  readonly id: string
  readonly parents: ReadonlyArray<string>
  readonly place: Place
  /** The normalised text's key (contentKey): equal exactly when the texts are. */
  readonly hash: string
  readonly kind: string | null
  readonly content: string
  readonly contradicts: ReadonlyArray<string>
  readonly createdAt: number
}

/** A pair kept as a FORKS edge (forkRule.ts linkKids): the rule's pairs that are not two kind-less facts. */
const storedPair = (x: ModelFact, y: ModelFact) =>
  ((x.kind ?? null) !== null || (y.kind ?? null) !== null) && disagree(x, y)

/** Only a choice or a fact with `contradicts` can be in such a pair. */
const special = (f: ModelFact) => f.kind === "choice" || (f.contradicts ?? []).length > 0

/** After a batch's statement landed: its facts. */
export const rememberFacts = (memory: ImportMemory, facts: ReadonlyArray<WrittenFact>) => {
  for (const f of facts) {
    memory.places.set(f.id, f.place)
    if (!memory.fresh) continue
    const model: ModelFact = {
      id: f.id,
      content: f.content,
      parentId: null,
      createdAt: f.createdAt,
      kind: (f.kind === null || f.kind === "" ? null : f.kind) as ModelKind | null,
      contradicts: f.contradicts
    }
    memory.facts.set(f.id, model)
    const c: Child = {
      id: f.id,
      norm: f.hash,
      kinded: (f.kind ?? "") !== "",
      createdAt: f.createdAt,
      retractedAt: null,
      // Set from the file's revisions when the batch is marked (forksOfBatch).
      revises: null,
      pairedWith: []
    }
    memory.child.set(f.id, c)
    for (const p of f.parents) {
      const kids = memory.kids.get(p)
      // The FORKS pairs linkForksQuery makes under p with this fact in them, decided by the same rule:
      // a choice or a fact with `contradicts` against every sibling, any other against those only.
      for (const k of (special(model) ? kids : memory.specialKids.get(p)) ?? []) {
        if (storedPair(model, memory.facts.get(k.id)!)) {
          c.pairedWith.push(k.id)
          k.pairedWith.push(f.id)
        }
      }
      if (kids === undefined) memory.kids.set(p, [c])
      else kids.push(c)
      if (special(model)) {
        memory.special.add(p)
        const known = memory.specialKids.get(p)
        if (known === undefined) memory.specialKids.set(p, [c])
        else known.push(c)
      }
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
  batch: ReadonlyArray<{ readonly id: string; readonly parents: ReadonlyArray<string> }>,
  /** The file's revisions (winner to loser): a revision's save leaves out the fact it supersedes. */
  revisions: ReadonlyMap<string, string>
) => {
  const parents = [...new Set(batch.flatMap((f) => f.parents))]
  const fromFile = new Set(batch.map((f) => f.id))
  const kidsOf = (p: string) =>
    (memory.kids.get(p) ?? []).map((c) => revisions.has(c.id) ? { ...c, revises: revisions.get(c.id)! } : c)
  const marks = parents.filter((p) => !memory.marked.has(p) && marksFork(kidsOf(p), fromFile))
  for (const p of marks) memory.marked.add(p)
  return { marks, linked: parents.filter((p) => memory.special.has(p)) }
}
