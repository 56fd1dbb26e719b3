import { Context, type Effect } from "effect"
import type { ContextCursor, ImpactCursor, PageRequest } from "../domain/chainPaging.js"
import type { DatabaseError, FactNotFound, InvalidInput, InvalidResolution, MemoryFull } from "../domain/errors.js"
import type { Dependent, Fact } from "../domain/fact.js"
import type { MemoryRecord } from "../domain/memoryRecord.js"
import type { ChainDecision } from "../domain/outputs.js"
import type { NewRun, Procedure, Run, RunCounts, StepsWrite } from "../domain/procedures.js"
import type {
  BriefingOptions,
  BulkFact,
  ClustersOptions,
  Compatibility,
  Confirmation,
  ConflictsRequest,
  CurrentStateOptions,
  ImportantOptions,
  NewFact,
  RecordPosition,
  Resolution,
  Retraction,
  SearchOptions,
  ThreadRequest,
  TimelineRequest
} from "./factStore/requests.js"
import type {
  Briefing,
  BulkSaved,
  Clusters,
  CompatibleRecord,
  Confirmed,
  ConflictsPage,
  ImportantPage,
  Page,
  Resolved,
  Retracted,
  Saved,
  SearchRow,
  ThreadPage,
  TimelineEntry
} from "./factStore/results.js"

export type * from "./factStore/requests.js"
export type * from "./factStore/results.js"

/** A procedure's fact as the procedure tools check it: its kind, version and earlier versions' ids. */
export interface FactKindRecord {
  readonly id: string
  readonly kind: string | null
  readonly version: number
  readonly lineage: ReadonlyArray<string>
  /** Its runs as counted on write (0 for a fact of another kind). */
  readonly success: number
  readonly failure: number
}

/** Procedures (issue 44, layers/procedures): facts of kind `procedure` with their steps and runs. */
export interface ProcedureOps {
  /** Whole procedures by id (a missing id or a fact of another kind is left out). */
  readonly procedures: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, Procedure>, DatabaseError>
  readonly kinds: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, FactKindRecord>, DatabaseError>
  /** The steps of a procedure fact just saved, once (a retry writes nothing again). */
  readonly writeSteps: (w: StepsWrite) => Effect.Effect<void, DatabaseError>
  readonly recordRun: (
    r: NewRun
  ) => Effect.Effect<
    { readonly run: Run; readonly runs: RunCounts; readonly existing: boolean },
    FactNotFound | InvalidInput | DatabaseError
  >
  /** Warnings and failed runs by others in a briefing's window, newest first, at most `limit` each. */
  readonly procedureBriefing: (
    r: { readonly name: string; readonly since: number; readonly asOf: number; readonly limit: number }
  ) => Effect.Effect<{ readonly warnings: ReadonlyArray<Fact>; readonly failedRuns: ReadonlyArray<Run> }, DatabaseError>
  /** Runs newest first, places below `before` (null: from the newest of `total`). */
  readonly runs: (
    id: string,
    total: number,
    before: number | null,
    limit: number
  ) => Effect.Effect<{ readonly runs: ReadonlyArray<Run>; readonly next: number | null }, DatabaseError>
}

/** What the FactStore does. */
export interface FactStoreShape extends ProcedureOps {
  readonly save: (fact: NewFact) => Effect.Effect<Saved, FactNotFound | InvalidInput | MemoryFull | DatabaseError>
  /**
   * The bulk path: many facts in one statement, with the rules a save applies to each (see
   * layers/factStore/saveMany.ts); parents may be earlier facts of the same batch. Inputs are
   * already checked (bulk/bulkSave.ts checks them as relay_save_fact does). Errors name
   * `facts.<i>.<field>`; a batch that fails writes nothing.
   */
  readonly saveMany: (
    facts: ReadonlyArray<BulkFact>,
    /** The place of facts[0] in the caller's whole list, for the messages. */
    first?: number
  ) => Effect.Effect<ReadonlyArray<BulkSaved>, FactNotFound | InvalidInput | MemoryFull | DatabaseError>
  /** The chain from the fact toward its root, a page at a time: root first within a page, the fact last on the first. */
  readonly context: (
    id: string,
    page: PageRequest<ContextCursor>,
    /** As the memory stood then (epoch ms); null or left out: now. */
    asOf?: number | null
  ) => Effect.Effect<Page<Fact>, FactNotFound | DatabaseError>
  /** Why the listed facts are superseded: the decisions each lost (up to 3), as of `asOf` when not null. */
  readonly lostDecisions: (
    ids: ReadonlyArray<string>,
    asOf: number | null
  ) => Effect.Effect<ReadonlyArray<ChainDecision>, DatabaseError>
  /** What builds on the fact, by distance then age, a page at a time. */
  readonly impact: (
    id: string,
    page: PageRequest<ImpactCursor>
  ) => Effect.Effect<Page<Dependent>, FactNotFound | DatabaseError>
  /** The newest facts older than `before` (null: from the newest). */
  readonly currentState: (
    options: CurrentStateOptions
  ) => Effect.Effect<Page<Fact>, FactNotFound | InvalidInput | DatabaseError>
  readonly openConflicts: (
    request: ConflictsRequest
  ) => Effect.Effect<ConflictsPage, FactNotFound | InvalidInput | DatabaseError>
  readonly resolve: (
    resolution: Resolution
  ) => Effect.Effect<Resolved, FactNotFound | InvalidResolution | InvalidInput | DatabaseError>
  /** Records two siblings as compatible (idempotent: a repeat returns the first record). */
  readonly compatible: (
    compatibility: Compatibility
  ) => Effect.Effect<CompatibleRecord, FactNotFound | InvalidResolution | InvalidInput | DatabaseError>
  /** Retracts a fact (once: a repeat answers the first retraction); its dependents turn stale. */
  readonly retract: (retraction: Retraction) => Effect.Effect<Retracted, FactNotFound | InvalidInput | DatabaseError>
  /** Records that a stale fact still holds: it, and what builds on it through it, turn current. */
  readonly confirm: (
    confirmation: Confirmation
  ) => Effect.Effect<Confirmed, FactNotFound | InvalidInput | InvalidResolution | DatabaseError>
  readonly briefing: (options: BriefingOptions) => Effect.Effect<Briefing, FactNotFound | InvalidInput | DatabaseError>
  /** A page of the materialised importance (or, before the first generation, computed now), with its as-of stamp. */
  readonly important: (options: ImportantOptions) => Effect.Effect<ImportantPage, DatabaseError>
  readonly search: (
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<SearchRow>, FactNotFound | InvalidInput | DatabaseError>
  /**
   * Semantic recall (RELAY_EMBEDDINGS_URL, layers/factStore/vectors.ts): for each text, the facts
   * nearest its vector with the search's filters, as hits (`weak` below RELAY_EMBEDDINGS_STRONG); null
   * when no endpoint is set or it gave no vectors (then a search ranks by words alone).
   */
  readonly similar: (
    options: SearchOptions,
    texts: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<ReadonlyArray<SearchRow>> | null, FactNotFound | InvalidInput | DatabaseError>
  /** How many facts match a search's words and own-field filters whatever their status, up to `cap` (null in a thread). */
  readonly matchCount: (options: SearchOptions, cap: number) => Effect.Effect<number | null, DatabaseError>
  /** For each prefix, the ids of at most two facts that start with it (none: no such fact). */
  readonly idsStartingWith: (
    prefixes: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<string>>, DatabaseError>
  /**
   * The spelling first written of each name, compared without case (`record`: a name new to the
   * graph is recorded as its own first spelling; otherwise it maps to itself).
   */
  readonly shownNames: (
    names: ReadonlyArray<string>,
    record: boolean
  ) => Effect.Effect<ReadonlyMap<string, string>, DatabaseError>
  readonly clusters: (options: ClustersOptions) => Effect.Effect<Clusters, DatabaseError>
  /** A page of the thread (the tree under its root) a fact belongs to, with the decisions touching it. */
  readonly thread: (request: ThreadRequest) => Effect.Effect<ThreadPage, FactNotFound | DatabaseError>
  /** Decisions and retractions, newest first. */
  readonly timeline: (request: TimelineRequest) => Effect.Effect<ReadonlyArray<TimelineEntry>, DatabaseError>
  /** The next records after a position in write order (export's records; the studio's live events). */
  readonly recordsAfter: (
    at: RecordPosition,
    limit: number
  ) => Effect.Effect<ReadonlyArray<MemoryRecord>, DatabaseError>
}

/**
 * Append-only facts and decisions of one graph, with every derived status computed from edges when
 * read. Implemented by layers/factStore (FactStoreLive), on the graph it is given.
 */
export class FactStore extends Context.Tag("relay/FactStore")<FactStore, FactStoreShape>() {}
