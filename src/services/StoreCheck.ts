import { Context, type Effect } from "effect"
import type { DatabaseError } from "../domain/errors.js"
import type { TaskStatus } from "../domain/tasks.js"

/** A fact whose stored stamp or merge place its edges do not give. */
export interface Drift {
  readonly id: string
  /** What is off: the stamp, or where the fact sits among merges (`merge_of`, `merge_depth`). */
  readonly field: "stale_at" | "merge_of" | "merge_depth"
  readonly stored: number | string | null
  readonly expected: number | string | null
}

/** A fork whose window (layers/factStore/forkWindow.ts) disagrees with its parent's pairs now. */
export interface ForkDrift {
  readonly id: string
  readonly opened: number | null
  readonly open: boolean
}

/** Two siblings whose FORKS edge disagrees with the fork rule. */
export interface PairDrift {
  readonly id: string
  readonly sibling: string
  /** The rule makes them a pair (and no edge says so), or the reverse. */
  readonly pair: boolean
}

/** A task counter a recount of the board does not give. */
export interface TaskCountDrift {
  readonly status: TaskStatus
  readonly stored: number
  readonly counted: number
}

/** Threads and clusters recomputed from the edges against what is stored. */
export interface ClusterDrift {
  readonly clusters: number
  readonly drifted: number
  readonly examples: ReadonlyArray<string>
}

/** A procedure whose run counts a recount of its runs does not give. */
export interface RunCountDrift {
  readonly id: string
  readonly stored: readonly [number | null, number | null]
  readonly counted: readonly [number, number]
}

export interface Verified {
  readonly facts: number
  readonly drifted: number
  /** The first drifted facts found (at most `shown`). */
  readonly examples: ReadonlyArray<Drift>
  /** Forked parents, and the first (at most `shown`) whose window says open where they are not, or the reverse. */
  readonly forks: number
  readonly forksDrifted: number
  readonly forkExamples: ReadonlyArray<ForkDrift>
  /** Choices and facts with `contradicts` checked against their siblings, and the first pairs whose FORKS edge disagrees with the rule. */
  readonly pairsChecked: number
  readonly pairsDrifted: number
  readonly pairExamples: ReadonlyArray<PairDrift>
  /** Each task counter (tasks/taskCounts.ts) that a recount of the board does not give. */
  readonly taskCounts: ReadonlyArray<TaskCountDrift>
  /** Parents with an open pair now and no fork mark, and the first of them. */
  readonly unmarked: number
  readonly unmarkedExamples: ReadonlyArray<string>
  /** Stamps outside 1970 .. now + the window ahead: the first facts, and how many of each kind. */
  readonly outside: {
    readonly facts: number
    readonly factExamples: ReadonlyArray<{ readonly id: string; readonly created_at: number }>
    readonly clockLast: number | null
    readonly decisions: number
    readonly retractions: number
    readonly confirmations: number
    readonly tasks: number
  }
  /** Threads and clusters recomputed from the edges against what is stored (clusterMigration.ts). */
  readonly clusters: ClusterDrift
  /** Procedures, and those whose run counts a recount of their runs does not give (procedures/runCounts.ts). */
  readonly runs: { readonly procedures: number; readonly drifted: ReadonlyArray<RunCountDrift> }
}

/** How many records `outside` counts in all (the clock counts one). */
export const outsideCount = (o: Verified["outside"]): number =>
  o.facts + (o.clockLast === null ? 0 : 1) + o.decisions + o.retractions + o.confirmations + o.tasks

/**
 * `check-db --verify` (layers/factStore/verifyStored.ts): everything the writes keep, recomputed from
 * the edges and compared with what the graph stores; the first `shown` of each drift.
 */
export class StoreCheck extends Context.Tag("relay/StoreCheck")<StoreCheck, {
  readonly verify: (shown?: number, ahead?: number) => Effect.Effect<Verified, DatabaseError>
}>() {}
