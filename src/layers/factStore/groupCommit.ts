import { Cause, Chunk, Config, Deferred, Effect, Option, Queue, Ref, Schema } from "effect"
import { DatabaseError } from "../../domain/errors.js"
import type { CypherParams, GraphDatabase, Statement } from "../../services/GraphDatabase.js"
import { decodeRows } from "../database/decodeRows.js"

/**
 * Group commit (issue 42, point 3): a save's statement goes to one writer fiber per store. While a
 * statement is in flight, the saves that arrive queue; the writer then takes every one waiting (up
 * to `batchLimit`) and sends those with the same statement as ONE statement, `UNWIND $batch` over a
 * `CALL {}` subquery that is the lone statement with each `$param` read from its row. FalkorDB runs a
 * subquery once per row, in order, each seeing what the rows before it wrote, so a batch is the
 * saves run one after another: an earlier row is a later one's sibling (fork, duplicate_of), stamps
 * rise row by row from the clock the earlier row moved, capacity counts the earlier rows, and a
 * second row with an earlier row's id (the same request_id) finds that fact (createFact.ts
 * `sameOrNew`). A lone save (nothing in flight) is sent at once, as the lone statement: it never
 * waits and costs what it did.
 *
 * Failing alone: a row whose save has no row (its own rule: a missing parent, a taken id, a full
 * memory) leaves the others as they are; the caller diagnoses it as before. If the whole statement
 * fails for what may be one row's own (a constraint a concurrent process hit first, a statement the
 * server rejected), each save of it runs again alone, in order (each is idempotent by its id, so one
 * that did land is answered, not written twice). A failure of the statement as a whole (the database
 * unreachable or busy, a timeout, too few replicas confirming it, the store shutting down) is every
 * save's answer, as it would be a lone save's: a rerun would find the facts the statement wrote and
 * answer them as if replicas had confirmed them.
 *
 * Interruption: a caller whose time budget ends before its save's statement is sent takes it back;
 * the writer skips it and it is never written (the caller gets the budget's timeout error, as
 * before), in the statement it was taken for and in any rerun alone. Once its statement is sent it
 * may land, exactly as a lone save cut off mid-statement could: a retry with the same request_id
 * answers that fact. When the store closes, every save not yet answered fails `shut_down`.
 *
 * The same kind of writer, on read statements, batches the suggested-links reads of concurrent saves
 * (links.ts, `makeReadBatcher`): a lone read is sent at once, reads that arrive while one is in flight
 * go as one statement, and one that fails other than as a whole is sent again alone, as a save is.
 */

/**
 * RELAY_SAVE_BATCH: the most saves one statement carries (default 32); 1 turns group commit off, each
 * save its own statement as before (the benchmark's reference, and a way back).
 */
export const saveBatchLimit = Config.integer("RELAY_SAVE_BATCH").pipe(
  Config.withDefault(32),
  Config.validate({
    message: "RELAY_SAVE_BATCH must be a whole number from 1 to 256",
    validation: (n) => n >= 1 && n <= 256
  })
)

/**
 * How saves of one statement go together: the batch statement (rows `gc_k` plus the lone statement's
 * columns, in row order) and its parameters for the rows' own.
 */
export interface BatchForm {
  readonly cypher: string
  readonly params: (rows: ReadonlyArray<CypherParams>) => CypherParams
}

const BatchRow = Schema.Struct(
  { gc_k: Schema.Number },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

interface Entry {
  readonly cypher: string
  readonly params: CypherParams
  /** Its caller gave up (its budget ended): from then on it is sent in no statement. */
  readonly dropped: Ref.Ref<boolean>
  readonly done: Deferred.Deferred<ReadonlyArray<unknown>, DatabaseError>
}

/** The rows of one statement, run alone or in a batch: the lone statement's rows, decoded by `rowSchema`. */
type Batched = <A, I>(
  cypher: string,
  params: CypherParams,
  rowSchema: Schema.Schema<A, I>
) => Effect.Effect<ReadonlyArray<A>, DatabaseError>

export interface GroupCommit {
  /** One save's statement. */
  readonly write: Batched
}

export interface ReadBatcher {
  /** One read statement. */
  readonly read: Batched
}

/** A lone statement's rows, kept as they came (each caller decodes with its own Schema). */
const BatchRowAlone = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** Whether the save's caller still waits for it. */
const wanted = (e: Entry) => Effect.map(Ref.get(e.dropped), (dropped) => !dropped)

/** The saves whose callers still wait: a dropped one is left out of what is sent. */
const stillWanted = (entries: ReadonlyArray<Entry>) => Effect.filter(entries, wanted)

// Every outcome reaches the caller, a defect too: the writer itself never fails.
const alone = (run: Statement, e: Entry) =>
  Effect.flatMap(Effect.exit(run(e.cypher, e.params, BatchRowAlone)), (exit) => Deferred.done(e.done, exit))

/** One by one, in order, each only if its caller still waits when its turn comes. */
const eachAlone = (run: Statement, group: ReadonlyArray<Entry>) =>
  Effect.forEach(group, (e) => Effect.whenEffect(alone(run, e), wanted(e)), { discard: true })

/** Failures of the statement as a whole, never one row's own: every save of it answers with it. */
const wholeStatement: ReadonlySet<DatabaseError["reason"]> = new Set([
  "unreachable",
  "busy",
  "timeout",
  "not_replicated",
  "shut_down",
  "refused_login",
  "no_module",
  "newer_schema"
])

const together = (run: Statement, form: BatchForm, group: ReadonlyArray<Entry>) =>
  run(form.cypher, form.params(group.map((e, k) => ({ ...e.params, gc_k: k }))), BatchRow).pipe(
    Effect.flatMap((rows) =>
      Effect.forEach(group, (e, k) =>
        Deferred.succeed(
          e.done,
          rows.filter((r) => r.gc_k === k).map(({ gc_k: _, ...rest }) => rest)
        ), { discard: true })
    ),
    Effect.catchAllCause((cause) => {
      const failure = Cause.failureOption(cause)
      return Option.isSome(failure) && wholeStatement.has(failure.value.reason)
        ? Effect.forEach(group, (e) => Deferred.fail(e.done, failure.value), { discard: true })
        // What may be one row's own: each save runs again alone, so one's own failure stays its own.
        : eachAlone(run, group)
    })
  )

/** Saves that share a statement, in the order they were taken (first appearance orders the groups). */
const byStatement = (entries: ReadonlyArray<Entry>) => {
  const groups = new Map<string, Array<Entry>>()
  for (const e of entries) {
    const g = groups.get(e.cypher)
    if (g === undefined) groups.set(e.cypher, [e])
    else g.push(e)
  }
  return [...groups.values()]
}

/** One fiber that sends `run`'s statements, batched by `forms`: lives as long as the store's scope. */
const makeBatcher = (run: Statement, forms: ReadonlyMap<string, BatchForm>) =>
  Effect.gen(function*() {
    const batchLimit = yield* saveBatchLimit
    if (batchLimit === 1) {
      const direct: Batched = (cypher, params, rowSchema) => run(cypher, params, rowSchema)
      return direct
    }
    // Every statement not yet answered; when the store closes (after the writer stops) each fails shut_down.
    const unanswered = new Set<Entry>()
    const closing = new DatabaseError({
      reason: "shut_down",
      detail: "the store closed before the statement was answered"
    })
    yield* Effect.addFinalizer(() =>
      Effect.forEach(unanswered, (e) => Deferred.fail(e.done, closing), { discard: true })
    )
    const queue = yield* Effect.acquireRelease(Queue.unbounded<Entry>(), Queue.shutdown)
    const writer = Effect.gen(function*() {
      const taken = yield* Queue.takeBetween(queue, 1, batchLimit)
      for (const queued of byStatement(Chunk.toReadonlyArray(taken))) {
        // Checked as its statement goes, not when taken: a caller that gave up meanwhile is left out.
        const group = yield* stillWanted(queued)
        if (group.length === 0) continue
        const form = forms.get(group[0]!.cypher)
        // A statement with no batch form runs its saves one by one, in the order they queued.
        yield* group.length === 1 || form === undefined ? eachAlone(run, group) : together(run, form, group)
      }
    }).pipe(Effect.forever)
    yield* Effect.forkScoped(Effect.interruptible(writer))
    const batched: Batched = (cypher, params, rowSchema) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const entry: Entry = {
            cypher,
            params,
            dropped: yield* Ref.make(false),
            done: yield* Deferred.make<ReadonlyArray<unknown>, DatabaseError>()
          }
          if (yield* Queue.isShutdown(queue)) return yield* Effect.fail(closing)
          unanswered.add(entry)
          yield* Queue.offer(queue, entry)
          // Taken back if not yet sent when the caller gives up: then it is never written.
          return yield* restore(Deferred.await(entry.done)).pipe(
            // (Sent already, it may have landed; a rerun alone after a failed batch is not sent for it.)
            Effect.onInterrupt(() => Ref.set(entry.dropped, true)),
            Effect.ensuring(Effect.sync(() => unanswered.delete(entry)))
          )
        })
      ).pipe(Effect.flatMap(decodeRows(rowSchema)))
    return batched
  })

/** The store's writer of saves (RELAY_SAVE_BATCH 1: each save sent as it comes). */
export const makeGroupCommit = (db: GraphDatabase["Type"], forms: ReadonlyMap<string, BatchForm>) =>
  Effect.map(makeBatcher(db.write, forms), (write): GroupCommit => ({ write }))

/** The store's batcher of reads (links.ts), on and off with group commit: RELAY_SAVE_BATCH 1 sends each as it comes. */
export const makeReadBatcher = (db: GraphDatabase["Type"], forms: ReadonlyMap<string, BatchForm>) =>
  Effect.map(makeBatcher(db.read, forms), (read): ReadBatcher => ({ read }))
