import { Context, type Effect } from "effect"
import type { ContextCursor, ImpactCursor, PageRequest } from "../domain/chainPaging.js"
import type { DatabaseError, FactNotFound, InvalidInput, InvalidResolution } from "../domain/errors.js"
import type { Conflict, Decision, Dependent, Fact, FactStatus } from "../domain/fact.js"
import type { SearchHit } from "../domain/outputs.js"

export interface NewFact {
  /** The call's own id, or the one derived from the client's request_id (domain/requestId.ts). */
  readonly id: string
  readonly content: string
  readonly writtenBy: string
  readonly sessionId: string
  readonly parentId: string | null
}

export interface Saved {
  readonly fact: Fact
  /** The most recent siblings already under the same parent whose normalised content differs, oldest first. */
  readonly forkSiblings: ReadonlyArray<Fact>
  /** How many such siblings there are in all. */
  readonly siblingsTotal: number
  /** The oldest sibling with the same normalised content. */
  readonly duplicateOf: Fact | null
}

export interface Resolution {
  /** The tool call's id, made once before any retry, or derived from the client's request_id. */
  readonly callId: string
  readonly winnerId: string
  readonly loserId: string
  readonly reason: string
  readonly resolvedBy: string
  /** How many of the loser's dependents `stale` holds (the first page of its impact; default 100). */
  readonly staleLimit?: number | undefined
}

/** Two siblings to record as compatible: both stand, and their pair is no longer a conflict. */
export interface Compatibility {
  readonly callId: string
  readonly factIds: readonly [string, string]
  readonly reason: string
  readonly resolvedBy: string
}

export interface CompatibleRecord {
  /** The pair, the smaller id first (as stored). */
  readonly facts: readonly [Fact, Fact]
  readonly reason: string
  readonly resolvedBy: string
  readonly createdAt: number
  readonly alreadyResolved: boolean
}

export interface Retraction {
  /** The Retraction's id: the tool call's, or the one derived from the client's request_id. */
  readonly callId: string
  readonly factId: string
  readonly reason: string
  readonly retractedBy: string
  /** How many of the fact's dependents `stale` holds (default 100). */
  readonly staleLimit?: number | undefined
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

/** One page of a list and the cursor to the next, null on the last. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly next_cursor: string | null
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

/**
 * Where a page of open conflicts starts: the snapshot stamp (only children and decisions stamped at
 * or before it count, so later writes cannot shift the pages), then after the parent whose key
 * (its newest open child's created_at) is `key`, or within it, children older than `child` (0: none).
 */
export interface ConflictsAfter {
  readonly snap: number
  readonly key: number
  readonly child: number
}

export interface ConflictsPage {
  readonly conflicts: ReadonlyArray<Conflict>
  /** Where the next page starts; null on the last page. */
  readonly next: ConflictsAfter | null
}

export interface ConflictsRequest {
  readonly limit: number
  /** null: the first page, as of the graph's last stamp. */
  readonly after: ConflictsAfter | null
  /** Children shown per parent (default conflictChildrenShown). */
  readonly children?: number
  /** Answer as the memory stood at this stamp (a first page only: the cursor carries it after). */
  readonly asOf?: number | null
}

/**
 * Where the next page of a briefing starts in its window (since, asOf]: after the new fact stamped
 * `factAfter`, after the decision stamped `decisionAfter`, and at `conflicts` (snapshot asOf).
 * A list is done when its position reaches asOf (conflicts: key 0).
 */
export interface BriefingAfter {
  readonly since: number
  readonly asOf: number
  readonly factAfter: number
  readonly decisionAfter: number
  readonly conflicts: ConflictsAfter
  /** An automatic briefing (no `since`): each page moves the reader's cursor to what it served. */
  readonly tracked: boolean
}

export interface Briefing {
  readonly asOf: number
  readonly since: number
  readonly newFacts: ReadonlyArray<Fact>
  readonly decisions: ReadonlyArray<Decision>
  readonly openConflicts: ReadonlyArray<Conflict>
  readonly next: BriefingAfter | null
}

export interface Cluster {
  readonly id: number
  /** How many facts the whole cluster has; `facts` may be fewer. */
  readonly size: number
  /** The oldest facts of the cluster, oldest first. */
  readonly facts: ReadonlyArray<Fact>
}

export interface Clusters {
  readonly clusters: ReadonlyArray<Cluster>
  readonly total: number
  readonly nextCursor: string | null
}

export interface CurrentStateOptions {
  readonly limit: number
  readonly sessionId: string | null
  readonly before: number | null
  /** Only facts of these statuses; null or left out: every status. */
  readonly statuses?: ReadonlyArray<FactStatus> | null | undefined
  readonly writtenBy?: string | null | undefined
  /** As the memory stood then (epoch ms); null or left out: now. */
  readonly asOf?: number | null | undefined
}

export interface SearchOptions {
  /** A full-text query as domain/search.ts writes it (never the client's raw text). */
  readonly query: string
  /** null: every status. */
  readonly statuses: ReadonlyArray<FactStatus> | null
  readonly writtenBy: string | null
  readonly sessionId: string | null
  /** Exclusive, epoch ms. */
  readonly since: number | null
  /** Inclusive, epoch ms. */
  readonly until: number | null
  /** As the memory stood then (epoch ms); null or left out: now. */
  readonly asOf?: number | null | undefined
  /** How many hits at most (a page's limit + 1, to tell whether more remain). */
  readonly take: number
  /** The rank key of the last hit of the previous page. */
  readonly after: SearchKey | null
}

/** A hit's place in the ranking: [score in thousandths, node id], both descending. */
export type SearchKey = readonly [number, number]

export interface SearchRow {
  readonly hit: SearchHit
  readonly key: SearchKey
}

/** Append-only facts and decisions, with every derived status computed from edges when read. */
export class FactStore extends Context.Tag("relay/FactStore")<FactStore, {
  readonly save: (fact: NewFact) => Effect.Effect<Saved, FactNotFound | InvalidInput | DatabaseError>
  /** The chain from the fact toward its root, a page at a time: root first within a page, the fact last on the first. */
  readonly context: (
    id: string,
    page: PageRequest<ContextCursor>,
    /** As the memory stood then (epoch ms); null or left out: now. */
    asOf?: number | null
  ) => Effect.Effect<Page<Fact>, FactNotFound | DatabaseError>
  /** What builds on the fact, by distance then age, a page at a time. */
  readonly impact: (
    id: string,
    page: PageRequest<ImpactCursor>
  ) => Effect.Effect<Page<Dependent>, FactNotFound | DatabaseError>
  /** The newest facts older than `before` (null: from the newest). */
  readonly currentState: (options: CurrentStateOptions) => Effect.Effect<Page<Fact>, DatabaseError>
  readonly openConflicts: (request: ConflictsRequest) => Effect.Effect<ConflictsPage, DatabaseError>
  readonly resolve: (
    resolution: Resolution
  ) => Effect.Effect<Resolved, FactNotFound | InvalidResolution | InvalidInput | DatabaseError>
  /** Records two siblings as compatible (idempotent: a repeat returns the first record). */
  readonly compatible: (
    compatibility: Compatibility
  ) => Effect.Effect<CompatibleRecord, FactNotFound | InvalidResolution | InvalidInput | DatabaseError>
  /** Retracts a fact (once: a repeat answers the first retraction); its dependents turn stale. */
  readonly retract: (retraction: Retraction) => Effect.Effect<Retracted, FactNotFound | InvalidInput | DatabaseError>
  /**
   * A new briefing (fenced) when `after` is null, else the next page of the same window. With `since`
   * null it starts at the reader's cursor (first time: 7 days back) and moves the cursor as it serves.
   */
  readonly briefing: (
    options: {
      readonly reader: string
      readonly since: number | null
      readonly limit: number
      readonly after: BriefingAfter | null
    }
  ) => Effect.Effect<Briefing, DatabaseError>
  /** `after`: the [score, created_at] of the last fact of the previous page. */
  readonly important: (
    options: { readonly limit: number; readonly after: readonly [number, number] | null }
  ) => Effect.Effect<Page<{ fact: Fact; score: number }>, DatabaseError>
  readonly search: (options: SearchOptions) => Effect.Effect<ReadonlyArray<SearchRow>, DatabaseError>
  /** For each prefix, the ids of at most two facts that start with it (none: no such fact). */
  readonly idsStartingWith: (
    prefixes: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<string>>, DatabaseError>
  readonly clusters: (
    options: {
      readonly limit?: number | undefined
      readonly factsPerCluster?: number | undefined
      /** The [size, first created_at] of the last cluster of the previous page. */
      readonly after?: readonly [number, number] | null | undefined
    }
  ) => Effect.Effect<Clusters, DatabaseError>
}>() {}
