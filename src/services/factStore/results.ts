import type { ImportedNote } from "../../domain/imported.js"
/** What the FactStore answers. */
import type { Effect } from "effect"
import type { DatabaseError } from "../../domain/errors.js"
import type { Conflict, Decision, Dependent, Fact, Withdrawal } from "../../domain/fact.js"
import type { SearchHit } from "../../domain/outputs.js"
import type { BriefingAfter, ConflictsAfter, SearchKey } from "./requests.js"

export interface Saved {
  readonly fact: Fact
  /** The most recent siblings already under the same parent whose normalised content differs, oldest first. */
  readonly forkSiblings: ReadonlyArray<Fact>
  /** How many such siblings there are in all. */
  readonly siblingsTotal: number
  /** The oldest sibling with the same normalised content. */
  readonly duplicateOf: Fact | null
  /** What a revision superseded and made stale; null for a plain save. */
  readonly revision: Revision | null
  /** Under each parent after the first (builds_on), where the fact forks or repeats: the same three. */
  readonly alsoUnder: ReadonlyArray<AlsoUnder>
  /**
   * A choice's: the most recent differing siblings under its first parent that it was compared
   * with and does not fork with (domain/model/save.ts), oldest first; `comparedTotal` counts them all.
   */
  readonly compared: ReadonlyArray<Fact>
  readonly comparedTotal: number
  /** Up to 3 facts in other threads that say nearly the same thing (layers/factStore/links.ts). */
  readonly links: ReadonlyArray<{ readonly id: string; readonly content: string }>
}

export interface AlsoUnder {
  readonly parentId: string
  readonly forkSiblings: ReadonlyArray<Fact>
  readonly siblingsTotal: number
  readonly duplicateOf: Fact | null
}

export interface Revision {
  /** The fact superseded, now. */
  readonly fact: Fact
  readonly reason: string
  /** A page of the facts this revision made stale (not those already stale), in impact order. */
  readonly stale: ReadonlyArray<Dependent>
  readonly staleTotal: number
  /** Continues `stale` through relay_get_impact on the superseded fact; null when it is all. */
  readonly staleNextCursor: string | null
  /** The dependents named in still_holds, confirmed: current, and not in `stale`. */
  readonly stillHolds: ReadonlyArray<Fact>
}

export interface CompatibleRecord {
  /** The facts, in the order they were named. */
  readonly facts: ReadonlyArray<Fact>
  readonly reason: string
  readonly resolvedBy: string
  readonly createdAt: number
  readonly alreadyResolved: boolean
}

export interface Retracted {
  readonly id: string
  readonly fact: Fact
  readonly reason: string
  readonly retractedBy: string
  readonly createdAt: number
  readonly alreadyRetracted: boolean
  readonly stale: ReadonlyArray<Dependent>
  readonly staleNextCursor: string | null
}

export interface Confirmed {
  readonly id: string
  /** The fact as it reads now (active: the confirmation covers everything above it). */
  readonly fact: Fact
  readonly reason: string
  readonly confirmedBy: string
  readonly createdAt: number
  /** An earlier call had confirmed it (the fact was no longer stale): its record is answered. */
  readonly alreadyConfirmed: boolean
  /** How many facts below it this confirmation made current again. */
  readonly refreshed: number
}

/** One page of a list and the cursor to the next, null on the last. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly next_cursor: string | null
  /** Items of the page's span a filter left out (counted up to a cap), where the read counts them. */
  readonly left_out?: number
}

export interface Resolved {
  readonly winner: Fact
  readonly loser: Fact
  readonly reason: string
  readonly resolvedBy: string
  readonly createdAt: number
  readonly alreadyResolved: boolean
  readonly stale: ReadonlyArray<Dependent>
  /** A cursor for the loser's impact past `stale`; null when `stale` is all of it. */
  readonly staleNextCursor: string | null
}

export interface ConflictsPage {
  readonly conflicts: ReadonlyArray<Conflict>
  /** Where the next page starts; null on the last page. */
  readonly next: ConflictsAfter | null
}

export interface Briefing {
  readonly asOf: number
  readonly since: number
  readonly newFacts: ReadonlyArray<Fact>
  readonly decisions: ReadonlyArray<Decision>
  readonly retractions: ReadonlyArray<Withdrawal>
  readonly openConflicts: ReadonlyArray<Conflict>
  /** The imports made in the window and what they brought (the first page only; importedNotes.ts). */
  readonly imported: ReadonlyArray<ImportedNote>
  readonly next: BriefingAfter | null
  /**
   * An automatic briefing's cursor move to what this page served, for whoever sends the page to run
   * once the page is ready to send (null: nothing to move). Never run for a page that failed.
   */
  readonly advance: Effect.Effect<void, DatabaseError> | null
}

export interface Cluster {
  readonly id: number
  /** How many facts the whole cluster has; `facts` may be fewer. */
  readonly size: number
  /** Its oldest fact's text, cut (clusterLabel). */
  readonly label: string
  /** Its oldest fact's id: a fact to pass as `thread`. */
  readonly thread: string
  /** Its newest fact's created_at (epoch ms). */
  readonly lastActivity: number
  /** Its forked parents with an open conflict now. */
  readonly openConflicts: number
  /** The oldest facts of the cluster, oldest first. */
  readonly facts: ReadonlyArray<Fact>
}

/** A page of the important facts, and the stamp the scores are as of (null: an empty memory). */
export interface ImportantPage extends Page<{ readonly fact: Fact; readonly score: number }> {
  readonly asOf: number | null
}

export interface Clusters {
  readonly clusters: ReadonlyArray<Cluster>
  readonly total: number
  readonly nextCursor: string | null
}

export interface SearchRow {
  readonly hit: SearchHit
  readonly key: SearchKey
}

/** One page of a thread: its facts oldest first, and the decisions touching them (stamps in epoch ms). */
export interface ThreadPage {
  readonly rootId: string
  readonly facts: ReadonlyArray<Fact>
  readonly decisions: ReadonlyArray<{
    readonly winner_id: string
    readonly loser_id: string
    readonly reason: string
    readonly resolved_by: string
    readonly created_at: number
  }>
  /** Whether facts remain after this page. */
  readonly more: boolean
}

/** One fact of a bulk save: its id and stamp, and whether it was already stored (the same request_id again). */
export interface BulkSaved {
  readonly id: string
  readonly createdAt: number
  readonly existed: boolean
}

/** A decision or a retraction as the studio's timeline shows it (stamp in epoch ms). */
export interface TimelineEntry {
  readonly kind: "decision" | "retraction"
  readonly created_at: number
  readonly by: string
  readonly reason: string
  readonly winner_id: string | null
  readonly winner_content: string | null
  readonly fact_id: string
  readonly fact_content: string
}
