/**
 * The pure model of the contract's rules: plain data and plain functions over an in-memory picture
 * of the graph, no Effect and no database. It is the oracle the property tests hold the Cypher to
 * on generated graphs, so it is spelled apart from the queries (and from src/domain/content.ts):
 * a rule got wrong there is not got wrong here the same way. This file: the picture itself.
 */

/** What a fact says of its parent: adds to it (`detail`), or one answer of several (`choice`). */
export type ModelKind = "detail" | "choice"

export interface ModelFact {
  readonly id: string
  readonly content: string
  /** The first fact it builds on (null: a root). */
  readonly parentId: string | null
  /** The facts it also builds on (builds_on names up to 8): a fact may merge as well as fork. */
  readonly alsoBuildsOn?: ReadonlyArray<string>
  /** Strictly increasing in commit order, as Relay stamps it. */
  readonly createdAt: number
  /** Only briefings read it (a reader does not see its own writes). */
  readonly writtenBy?: string
  /** Left out: the seed's rule (a differing sibling is a fork). */
  readonly kind?: ModelKind | null
  /** Siblings the writer said it contradicts (`contradicts` on save): a fork pair whatever the kinds. */
  readonly contradicts?: ReadonlyArray<string>
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

/**
 * A stale fact said to still hold (relay_confirm_fact): a decision or retraction above it stamped
 * before the confirmation no longer makes it, or what builds on it through it, stale; through a
 * merge saved before the confirmation it still does (status.ts, staleReasons).
 */
export interface ModelConfirmation {
  readonly fact: string
  readonly createdAt: number
}

export interface GraphModel {
  readonly facts: ReadonlyArray<ModelFact>
  readonly supersedes: ReadonlyArray<ModelResolution>
  readonly compatible?: ReadonlyArray<ModelCompatible>
  readonly retractions?: ReadonlyArray<ModelRetraction>
  readonly confirmations?: ReadonlyArray<ModelConfirmation>
}

export type Status = "active" | "superseded" | "stale" | "retracted"

/**
 * The contract's normalised content (trimmed, whitespace runs as one space, lowercase), spelled
 * differently from src/domain/content.ts on purpose: words split on whitespace, rejoined.
 */
export const normaliseContent = (content: string): string =>
  content.split(/\s+/).filter((word) => word.length > 0).join(" ").toLowerCase()

export const byId = (model: GraphModel): Map<string, ModelFact> => new Map(model.facts.map((f) => [f.id, f]))

/** Every fact `f` builds on, each once, the first parent first; none for a root. */
export const parentsOf = (f: ModelFact | undefined): ReadonlyArray<string> =>
  f === undefined || f.parentId === null ? [] : [...new Set([f.parentId, ...(f.alsoBuildsOn ?? [])])]

/** The facts that build on each fact: a fact with several parents is a child of each. */
export const childrenOf = (model: GraphModel): Map<string, Array<ModelFact>> => {
  const children = new Map<string, Array<ModelFact>>()
  for (const f of model.facts) {
    for (const p of parentsOf(f)) {
      const list = children.get(p) ?? []
      list.push(f)
      children.set(p, list)
    }
  }
  return children
}

/** One key for an unordered pair of ids. */
export const pairKey = (x: string, y: string): string => (x < y ? `${x} ${y}` : `${y} ${x}`)

/**
 * The commit-order stamp of a write: the Clock's now, or just past the graph's last stamp when the
 * Clock has not moved past it. A briefing's fence takes `max(now, last)` and makes it the last stamp.
 */
export const nextStamp = (last: number | null, now: number): number => last === null || now > last ? now : last + 1
