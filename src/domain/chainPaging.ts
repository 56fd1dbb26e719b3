import { Schema } from "effect"
import { Cursor, type CursorKey, pageLimit, replyBudgetBytes } from "./paging.js"

/**
 * Pages of the BUILDS_ON family: relay_get_context reads a chain from the fact toward its root,
 * relay_get_impact (and relay_resolve_conflict's `stale`) the facts below one, nearest first.
 */
/** The most facts a context page may ask for. */
export const contextMax = 500
export const contextLimit = pageLimit(50, contextMax)
export const impactLimit = pageLimit(100, 500)
export const staleDefault = 100
export const staleLimit = pageLimit(staleDefault, 500, "Stale facts to list")

/**
 * The JSON these lists may hold. The text block is JSON inside the reply's JSON, so a quote or a
 * backslash in a fact costs 2 bytes in structuredContent and 4 in the text: with content made of
 * them the text weighs twice the structured part, and 3 x 300 KiB (plus the rest of the reply)
 * stays under the 1 MiB a client reads, where 3 x replyBudgetBytes would not.
 */
export const chainBudgetBytes = Math.min(replyBudgetBytes, 300 * 1024)

const cursorMessage = "must be a next_cursor returned by this tool"

/** A cursor whose key must have this shape; any other decodes to the one cursor message. */
const keyed = <A, I extends CursorKey>(key: Schema.Schema<A, I>) =>
  Schema.compose(Cursor, key, { strict: false }).annotations({
    message: () => ({ message: cursorMessage, override: true }),
    jsonSchema: { type: "string", description: "A next_cursor" }
  })

/** Context: created_at of the oldest fact returned; the next page holds its ancestors. */
export const ContextCursor = keyed(Schema.Tuple(Schema.Number))
export type ContextCursor = typeof ContextCursor.Type

/**
 * Impact: the (distance, created_at) of the last dependent returned, and its node id to break a tie
 * (Relay's stamps never tie; bulk-loaded graphs may). A fourth number, the stamp of a revision, pages
 * only what that revision made stale (a revision's reply continues there: see layers/factStore/madeStale.ts).
 */
export const ImpactCursor = keyed(Schema.Union(
  Schema.Tuple(Schema.Number, Schema.Number, Schema.Number),
  Schema.Tuple(Schema.Number, Schema.Number, Schema.Number, Schema.Number),
  // A revision's stale page with still_holds: past its confirmations' stamp too (madeStale.ts, `until`).
  Schema.Tuple(Schema.Number, Schema.Number, Schema.Number, Schema.Number, Schema.Number)
))
export type ImpactCursor = typeof ImpactCursor.Type

export interface PageRequest<K> {
  readonly limit: number
  readonly cursor: K | null
}
