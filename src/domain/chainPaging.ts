import { ParseResult, Schema } from "effect"
import type { ImpactKey } from "./descendants.js"
import {
  Cursor,
  type CursorKey,
  type NamedCursor,
  namedCursor,
  pageLimit,
  type PlaceOf,
  replyBudgetBytes
} from "./paging.js"

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

/** Impact's own page: the last dependent returned, in impact order. */
const ImpactPlace: NamedCursor<ImpactKey> = namedCursor("distance", "createdAt", "node")
/**
 * A revision's stale page (its reply continues there: layers/factStore/madeStale.ts): the same place
 * in what the revision stamped `revision` made stale, past its last still_holds confirmation's stamp
 * (`until`). On the wire `until` is left off when it is the revision's own stamp.
 */
const HeldPlace = namedCursor("distance", "createdAt", "node", "revision", "until")
const RevisedPlace = namedCursor("distance", "createdAt", "node", "revision")
export type StalePlace = PlaceOf<typeof HeldPlace>

const readImpact = (key: CursorKey): ImpactKey | StalePlace | null => {
  if (key.length !== 4) return (key.length === 3 ? ImpactPlace : HeldPlace).read(key)
  const revised = RevisedPlace.read(key)
  return revised === null ? null : { ...revised, until: revised.revision }
}

/** The numbers of an impact cursor on the wire: 3 for impact's own page, 4 or 5 for a revision's stale page. */
export const impactNumbers = (at: ImpactKey | StalePlace): ReadonlyArray<number> =>
  !("revision" in at)
    ? ImpactPlace.wire(at)
    : at.until === at.revision
    ? RevisedPlace.wire(at)
    : HeldPlace.wire(at)

const place = { distance: Schema.Number, createdAt: Schema.Number, node: Schema.Number }

/** relay_get_impact's cursor, by name (one of another tool, or tampered with, is refused). */
export const ImpactCursor = keyed(Schema.transformOrFail(
  Schema.Array(Schema.Union(Schema.String, Schema.Number)),
  // A stale place first: encoding tries the members in order, and the plain place would drop its revision.
  Schema.Union(Schema.Struct({ ...place, revision: Schema.Number, until: Schema.Number }), Schema.Struct(place)),
  {
    strict: true,
    decode: (key, _, ast) => {
      const at = readImpact(key)
      return at === null ? ParseResult.fail(new ParseResult.Type(ast, key)) : ParseResult.succeed(at)
    },
    encode: (at) => ParseResult.succeed(impactNumbers(at))
  }
))
export type ImpactCursor = typeof ImpactCursor.Type

export interface PageRequest<K> {
  readonly limit: number
  readonly cursor: K | null
}
