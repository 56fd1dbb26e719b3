import { Context, type Effect } from "effect"
import type { DatabaseError, FactNotFound, InvalidResolution } from "../domain/errors.js"
import type { ContextCursor, ImpactCursor, PageRequest } from "../domain/chainPaging.js"
import type { Conflict, Decision, Dependent, Fact } from "../domain/fact.js"

export interface NewFact {
  readonly id: string
  readonly content: string
  readonly writtenBy: string
  readonly sessionId: string
  readonly parentId: string | null
}

export interface Saved {
  readonly fact: Fact
  /** Siblings already under the same parent whose normalised content differs, oldest first. */
  readonly forkSiblings: ReadonlyArray<Fact>
  /** The oldest sibling with the same normalised content. */
  readonly duplicateOf: Fact | null
}

export interface Resolution {
  /** The tool call's id, made once before any retry. */
  readonly callId: string
  readonly winnerId: string
  readonly loserId: string
  readonly reason: string
  readonly resolvedBy: string
  /** How many of the loser's dependents `stale` holds (the first page of its impact; default 100). */
  readonly staleLimit?: number | undefined
}

/** One page of a list and the cursor to the next, null on the last. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | null
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

export interface Briefing {
  readonly asOf: number
  readonly since: number
  readonly newFacts: ReadonlyArray<Fact>
  readonly decisions: ReadonlyArray<Decision>
  readonly openConflicts: ReadonlyArray<Conflict>
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
}

/** Append-only facts and decisions, with every derived status computed from edges when read. */
export class FactStore extends Context.Tag("relay/FactStore")<FactStore, {
  readonly save: (fact: NewFact) => Effect.Effect<Saved, FactNotFound | DatabaseError>
  /** The chain from the fact toward its root, a page at a time: root first within a page, the fact last on the first. */
  readonly context: (
    id: string,
    page: PageRequest<ContextCursor>
  ) => Effect.Effect<Page<Fact>, FactNotFound | DatabaseError>
  /** What builds on the fact, by distance then age, a page at a time. */
  readonly impact: (
    id: string,
    page: PageRequest<ImpactCursor>
  ) => Effect.Effect<Page<Dependent>, FactNotFound | DatabaseError>
  readonly currentState: (
    options: { readonly limit: number; readonly sessionId: string | null }
  ) => Effect.Effect<ReadonlyArray<Fact>, DatabaseError>
  readonly openConflicts: Effect.Effect<ReadonlyArray<Conflict>, DatabaseError>
  readonly resolve: (
    resolution: Resolution
  ) => Effect.Effect<Resolved, FactNotFound | InvalidResolution | DatabaseError>
  readonly briefing: (
    options: { readonly reader: string; readonly since: number | null }
  ) => Effect.Effect<Briefing, DatabaseError>
  readonly important: (limit: number) => Effect.Effect<ReadonlyArray<{ fact: Fact; score: number }>, DatabaseError>
  readonly clusters: (
    options: { readonly limit?: number | undefined; readonly factsPerCluster?: number | undefined }
  ) => Effect.Effect<Clusters, DatabaseError>
}>() {}
