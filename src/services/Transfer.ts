import { Context, type Effect, Schema, type Stream } from "effect"
import type { DatabaseError } from "../domain/errors.js"

/** An import refused before anything was written: the line and the field or rule it breaks. */
export class ImportRefused extends Schema.TaggedError<ImportRefused>()("ImportRefused", {
  message: Schema.String
}) {}

/** An import the database stopped partway: which lines, what failed, and what to do. */
export class ImportStopped extends Schema.TaggedError<ImportStopped>()("ImportStopped", {
  message: Schema.String
}) {}

export interface ImportProgress {
  /** The last line written (1 is the header). */
  readonly line: number
  readonly lines: number
  readonly facts: number
}

export interface ImportTextOptions {
  readonly merge: boolean
  /** Who ran the import (`--by`), kept on its Import record. */
  readonly by?: string
  /** How far past now a stamp of the file may be, in milliseconds (RELAY_STAMP_AHEAD_SECONDS). */
  readonly ahead?: number
  /** Whether the file's task approvals stand as approvals (`--keep-approvals`). */
  readonly approvals?: boolean
  readonly progress?: (p: ImportProgress) => Effect.Effect<void>
}

export interface ImportCounts {
  facts: number
  decisions: number
  compatible: number
  retractions: number
  confirmations: number
  tasks: number
  task_notes: number
  /** Runs of procedures (format 2), each counted on its procedure as it lands. */
  runs: number
  /** Records already in the graph (merge), left as they are. */
  skipped: number
  /** Records a rule refused against the graph's own edges (merge), by line: left out. */
  refused: Array<{ readonly line: number; readonly rule: string }>
}

/**
 * Export and import of one graph (docs/contract.md, Export), for `npm run export` / `import` and
 * `relay copy`: the layers/transfer implementation on the stack's graph.
 */
export class Transfer extends Context.Tag("relay/Transfer")<Transfer, {
  /** The graph's export as lines (the header first), each ending in a newline. */
  readonly exportLines: Stream.Stream<string, DatabaseError>
  /** Parses, checks and writes an export file's text; the counts and the Import record's id. */
  readonly importText: (
    text: string,
    options: ImportTextOptions
  ) => Effect.Effect<ImportCounts & { readonly importId: string }, ImportRefused | ImportStopped | DatabaseError>
}>() {}
