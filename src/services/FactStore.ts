import { Context, type Effect } from "effect"
import type { DatabaseError, FactNotFound, InvalidInput, InvalidResolution } from "../domain/errors.js"
import type { Conflict, Decision, Dependent, Fact } from "../domain/fact.js"

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
  /** Siblings already under the same parent whose normalised content differs, oldest first. */
  readonly forkSiblings: ReadonlyArray<Fact>
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
}

export interface Resolved {
  readonly winner: Fact
  readonly loser: Fact
  readonly reason: string
  readonly resolvedBy: string
  readonly createdAt: number
  readonly alreadyResolved: boolean
  readonly stale: ReadonlyArray<Dependent>
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
  readonly save: (fact: NewFact) => Effect.Effect<Saved, FactNotFound | InvalidInput | DatabaseError>
  readonly context: (id: string) => Effect.Effect<ReadonlyArray<Fact>, FactNotFound | DatabaseError>
  readonly impact: (id: string) => Effect.Effect<ReadonlyArray<Dependent>, FactNotFound | DatabaseError>
  readonly currentState: (
    options: { readonly limit: number; readonly sessionId: string | null }
  ) => Effect.Effect<ReadonlyArray<Fact>, DatabaseError>
  readonly openConflicts: Effect.Effect<ReadonlyArray<Conflict>, DatabaseError>
  readonly resolve: (
    resolution: Resolution
  ) => Effect.Effect<Resolved, FactNotFound | InvalidResolution | InvalidInput | DatabaseError>
  readonly briefing: (
    options: { readonly reader: string; readonly since: number | null }
  ) => Effect.Effect<Briefing, DatabaseError>
  readonly important: (limit: number) => Effect.Effect<ReadonlyArray<{ fact: Fact; score: number }>, DatabaseError>
  readonly clusters: (
    options: { readonly limit?: number | undefined; readonly factsPerCluster?: number | undefined }
  ) => Effect.Effect<Clusters, DatabaseError>
}>() {}
