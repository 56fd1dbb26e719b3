/** What callers hand the FactStore: the facts and decisions to write, and where a page starts. */
import type { ClusterPlace } from "../../domain/clusters.js"
import type { FactStatus, StoredKind } from "../../domain/fact.js"
import type { ImportantCursor } from "../../domain/graphRank.js"
import type { PlaceOf } from "../../domain/paging.js"

export interface NewFact {
  /** The call's own id, or the one derived from the client's request_id (domain/requestId.ts). */
  readonly id: string
  readonly content: string
  readonly writtenBy: string
  readonly sessionId: string
  readonly parentId: string | null
  /**
   * The other facts it builds on (builds_on after its first, each once; none: one parent). A fact
   * is a child of each (forks, duplicates and staleness per parent); threads follow `parentId` only.
   */
  readonly alsoOn?: ReadonlyArray<string> | undefined
  /** detail, choice, warning, procedure, or null (the seed's rule); see domain/model/conflicts.ts. */
  readonly kind?: StoredKind | null | undefined
  /** Siblings the writer says this fact contradicts: each such pair forks whatever the kinds. */
  readonly contradicts?: ReadonlyArray<string> | undefined
  /**
   * A revision (domain/model/revision.ts): the fact this one supersedes, written in the same
   * statement. `parentId` null then means the revised fact's own parent.
   */
  readonly revises?: Revises | null | undefined
}

export interface Revises {
  readonly id: string
  readonly reason: string
  /** How many of the facts it made stale the reply lists (default 100). */
  readonly staleLimit?: number | undefined
  /** Dependents it would make stale that stay current: each confirmed by the writer right after (stillHolds.ts). */
  readonly stillHolds?: ReadonlyArray<string> | undefined
}

/** A fact of a bulk save (FactStore.saveMany). */
export interface BulkFact extends NewFact {
  /** The id derives from a request_id, so it may be stored already; a random id never is. */
  readonly requested: boolean
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

/** Siblings to record as compatible: all stand, and no pair of them is a conflict any more. */
export interface Compatibility {
  readonly callId: string
  /** Two or more siblings: every pair of them is recorded. */
  readonly factIds: ReadonlyArray<string>
  readonly reason: string
  readonly resolvedBy: string
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

export interface Confirmation {
  /** The Confirmation's id: the tool call's, or the one derived from the client's request_id. */
  readonly callId: string
  readonly factId: string
  readonly reason: string
  readonly confirmedBy: string
}

/**
 * Where a page of open conflicts starts: the snapshot stamp (only children and decisions stamped at
 * or before it count, so later writes cannot shift the pages), then after the parent whose key
 * (its newest open child's created_at) is `key`, or within it, children older than `child` (0: none).
 */
export interface ConflictsAfter {
  readonly snap: number
  readonly key: number
  /** The created_at of the parent last read: a merge may be the newest child of two parents, a tie. */
  readonly parent: number
  readonly child: number
}

export interface ConflictsRequest {
  readonly limit: number
  /** null: the first page, as of the graph's last stamp. */
  readonly after: ConflictsAfter | null
  /** Children shown per parent (default conflictChildrenShown). */
  readonly children?: number
  /** Answer as the memory stood at this stamp (a first page only: the cursor carries it after). */
  readonly asOf?: number | null
  /** Only parents in the thread of this fact (threadScope.ts), as of the snapshot. */
  readonly thread?: string | null | undefined
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
  readonly retractionAfter: number
  readonly conflicts: ConflictsAfter
  /** An automatic briefing (no `since`): each page moves the reader's cursor to what it served. */
  readonly tracked: boolean
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
  /** Only the thread of this fact (layers/factStore/threadScope.ts); null: the whole memory. */
  readonly thread?: string | null | undefined
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
  /** Only the thread of this fact (layers/factStore/threadScope.ts); null: the whole memory. */
  readonly thread?: string | null | undefined
  /** Only facts of this stored kind (a warning, a procedure); null or left out: any. */
  readonly kind?: string | null | undefined
}

/**
 * Which matches a hit is among: those holding every word of the query (`all`), or those holding
 * some but not every one (`any`), ranked after every `all` match, by Relay's BM25.
 */
export type SearchTier = "all" | "any"

/**
 * A hit's place in the ranking: its tier, then its score as read back and its node id, both
 * descending (see layers/factStore/search.ts). tools/search.ts SearchCursor writes it.
 */
export interface SearchKey {
  readonly score: number
  readonly node: number
  readonly tier: SearchTier
}

/**
 * A new briefing (fenced) when `after` is null, else the next page of the same window. With `since`
 * null it starts at the reader's cursor (first time: 7 days back) and moves the cursor as it serves.
 */
export interface BriefingOptions {
  readonly reader: string
  readonly since: number | null
  readonly limit: number
  readonly after: BriefingAfter | null
  /** Only what concerns the thread of this fact (threadScope.ts), as of the briefing's as_of. */
  readonly thread?: string | null | undefined
}

/** `after`: the last fact of the previous page (its rank and created_at). */
export interface ImportantOptions {
  readonly limit: number
  readonly after: PlaceOf<typeof ImportantCursor> | null
}

export interface ClustersOptions {
  readonly limit?: number | undefined
  readonly factsPerCluster?: number | undefined
  /** The last cluster of the previous page. */
  readonly after?: ClusterPlace | null | undefined
  /** How many clusters the previous pages held (the cursor carries it). */
  readonly skipped?: number | undefined
}

export interface ThreadRequest {
  /** Any fact of the thread: the thread is the tree under the root of its chain. */
  readonly factId: string
  readonly limit: number
  /** The created_at of the last fact of the previous page; null: from the root. */
  readonly after: number | null
  readonly asOf?: number | null | undefined
}

export interface TimelineRequest {
  readonly limit: number
  /** Only entries stamped before this (epoch ms); null: from the newest. */
  readonly before: number | null
  readonly asOf?: number | null | undefined
}

export type { RecordPosition } from "../../domain/memoryRecord.js"
