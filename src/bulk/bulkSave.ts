import { Effect, ParseResult, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { InvalidInput } from "../domain/errors.js"
import { FactKind } from "../domain/fact.js"
import { SaveFactFields } from "../domain/inputs.js"
import { requestFactId, RequestId } from "../domain/requestId.js"
import { toIso } from "../domain/time.js"
import { describeParseError } from "../mcp/callTool.js"
import { type BulkFact, FactStore } from "../services/FactStore.js"
import { SecretScanner } from "../services/SecretScanner.js"

/**
 * The bulk path: many facts saved at once, for seed, import and the benchmarks (and any program
 * that loads a memory), at tens of thousands of facts a second where relay_save_fact does hundreds.
 *
 * Each item is a relay_save_fact input (content, written_by, session_id, parent_fact_id?, kind?,
 * request_id?) plus `parent_request_id?`: the request_id of an EARLIER item of the same call, for a
 * parent saved in the same bulk call (its id is not known before). The same Schemas, trimming and
 * secret scanner as a save apply to every item, all before anything is written: a bad item is a
 * typed error naming `facts.<i>.<field>` and nothing is written. `parent_fact_id` must be a whole
 * id (no prefixes here). `request_id` is honoured as on a save: the fact's id is derived from
 * written_by and request_id, so running the same call again writes nothing twice and answers the
 * facts that landed; the same request_id with other content, session, kind or parent is
 * `invalid_input`.
 *
 * Facts go `bulkBatchSize` to a statement (1,000: ~100 ms of the database's own time on a shared
 * 2-core machine, so one batch holds the single writer no longer than a slow read) (FactStore.saveMany: the same node, edge, stamp, term
 * counts and ForkMark a save writes, in one atomic statement a batch). A call larger than one batch
 * is not atomic as a whole: batches before a failing one have landed, and running the call again
 * with request_ids finishes it. What a save answers besides the fact (its fork picture, the
 * duplicate) is not answered here: read relay_detect_conflicts afterwards.
 */
export const bulkBatchSize = 1000

export const BulkFactInput = Schema.Struct({
  content: SaveFactFields.fields.content,
  written_by: SaveFactFields.fields.written_by,
  session_id: SaveFactFields.fields.session_id,
  parent_fact_id: SaveFactFields.fields.parent_fact_id,
  kind: Schema.optional(FactKind),
  request_id: Schema.optional(RequestId),
  parent_request_id: Schema.optional(RequestId)
})
export type BulkFactInput = typeof BulkFactInput.Encoded

export interface BulkSavedFact {
  readonly id: string
  readonly created_at: string
  /** Stored before (the same request_id again): not written twice. */
  readonly existed: boolean
}

const decodeItem = Schema.decodeUnknown(BulkFactInput, { onExcessProperty: "error", errors: "first" })
const wholeId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const refused = (i: number, message: string) => new InvalidInput({ message: `facts.${i}.${message}` })

/** Checks every item as relay_save_fact would, then saves them in batches, in order. */
export const bulkSave = Effect.fn("relay/bulk/save")(function*(items: ReadonlyArray<unknown>) {
  const scanner = yield* SecretScanner
  const store = yield* FactStore
  const facts: Array<BulkFact> = []
  const byRequest = new Map<string, string>()
  const ids = new Set<string>()
  const scanned = new Set<string>()
  for (const [i, item] of items.entries()) {
    const input = yield* Effect.mapError(
      decodeItem(item ?? {}),
      (e: ParseResult.ParseError) => refused(i, describeParseError(e))
    )
    const content = input.content.trim()
    yield* scanner.check(`facts.${i}.content`, content)
    // Labels repeat across a load: each distinct one is scanned once (the scanner costs ~80 us a text).
    if (!scanned.has(`w:${input.written_by}`)) yield* scanner.check(`facts.${i}.written_by`, input.written_by)
    if (!scanned.has(`s:${input.session_id}`)) yield* scanner.check(`facts.${i}.session_id`, input.session_id)
    scanned.add(`w:${input.written_by}`).add(`s:${input.session_id}`)
    if (input.parent_fact_id !== undefined && input.parent_request_id !== undefined) {
      return yield* refused(i, "parent_request_id: not taken with parent_fact_id")
    }
    if (input.parent_fact_id !== undefined && !wholeId.test(input.parent_fact_id)) {
      return yield* refused(i, "parent_fact_id: must be a whole fact id in a bulk save")
    }
    let parentId: string | null = input.parent_fact_id ?? null
    if (input.parent_request_id !== undefined) {
      const parent = byRequest.get(input.parent_request_id)
      if (parent === undefined) {
        return yield* refused(i, "parent_request_id: must be the request_id of an earlier fact of this call")
      }
      parentId = parent
    }
    const id = input.request_id === undefined ? randomUUID() : requestFactId(input.written_by, input.request_id)
    if (ids.has(id)) return yield* refused(i, "request_id: used twice in this call")
    ids.add(id)
    if (input.request_id !== undefined) byRequest.set(input.request_id, id)
    facts.push({
      id,
      content,
      writtenBy: input.written_by,
      sessionId: input.session_id,
      parentId,
      kind: input.kind ?? null,
      requested: input.request_id !== undefined
    })
  }
  const saved: Array<BulkSavedFact> = []
  for (let first = 0; first < facts.length; first += bulkBatchSize) {
    const batch = yield* store.saveMany(facts.slice(first, first + bulkBatchSize), first)
    for (const b of batch) saved.push({ id: b.id, created_at: toIso(b.createdAt), existed: b.existed })
  }
  return saved
})
