import { Effect, FiberRef, Schema } from "effect"
import { InvalidInput } from "./errors.js"
import { escapeUnseen } from "./quote.js"

/**
 * Every list a tool returns is one page: at most `limit` items (each tool declares its default and
 * maximum) and, when more remain, a `next_cursor` to pass back as `cursor`. A cursor is a keyset
 * position (the sort key of the last item returned, e.g. `[created_at, id]`), never an offset, so
 * facts written meanwhile neither shift nor repeat a page. To the client it is an opaque string.
 */
export type CursorKey = ReadonlyArray<string | number>

const CursorJson = Schema.compose(
  Schema.StringFromBase64Url,
  Schema.parseJson(Schema.Array(Schema.Union(Schema.String, Schema.Number)))
)

const cursorMessage = "must be a next_cursor returned by this tool"

/** The `cursor` input field: decodes to the key of the last item of the previous page. */
export const Cursor = Schema.String.pipe(
  Schema.maxLength(512, { message: () => cursorMessage }),
  Schema.compose(CursorJson),
  Schema.annotations({
    message: () => ({ message: cursorMessage, override: true }),
    description: "A next_cursor",
    jsonSchema: { type: "string", description: "A next_cursor" }
  })
)

const notThisTools = new InvalidInput({ message: `cursor: ${cursorMessage}` })

/** A whole number on the wire (as every stamp, node id and count a cursor holds). */
export const isWhole = (v: string | number): v is number => typeof v === "number" && Number.isSafeInteger(v)

/** Exactly `n` whole numbers: what most cursors Relay makes hold. */
const wholeNumbers = (key: CursorKey, n: number): key is ReadonlyArray<number> => key.length === n && key.every(isWhole)

/**
 * The key of a cursor a tool made: exactly `n` whole numbers, or `invalid_input` naming the field.
 * No cursor gives null: the first page.
 */
export const cursorNumbers = (key: CursorKey | undefined, n: number) =>
  key === undefined
    ? Effect.succeed(null)
    : wholeNumbers(key, n)
    ? Effect.succeed(key)
    : Effect.fail(notThisTools)

export const encodeCursor = (key: CursorKey): string => Schema.encodeSync(CursorJson)(key)

/** A cursor read and written by name (`namedCursor`, `placeCursor`, `cursorOf`); `Key` is what it holds. */
export interface NamedCursor<Key, Wire extends CursorKey = ReadonlyArray<number>> {
  /** The key by name, or null when it is not one this cursor makes. */
  readonly read: (key: CursorKey) => Key | null
  /** The key on the wire, its fields in order (what `page` encodes). */
  readonly wire: (key: Key) => Wire
  /** null for no cursor (the first page), `invalid_input` naming the field for one this tool did not make. */
  readonly decode: (key: CursorKey | undefined) => Effect.Effect<Key | null, InvalidInput>
  /** The `next_cursor` string. */
  readonly encode: (key: Key) => string
}

/** The key a named cursor holds. */
export type PlaceOf<C> = C extends NamedCursor<infer Key, infer _> ? Key : never

/**
 * A cursor from how its key is read off the wire and written back: `read` gives null for a key this
 * cursor does not make, which decodes to the one cursor message.
 */
export const cursorOf = <Key, Wire extends CursorKey>(
  read: (key: CursorKey) => Key | null,
  wire: (key: Key) => Wire
): NamedCursor<Key, Wire> => ({
  read,
  wire,
  decode: (key) => {
    if (key === undefined) return Effect.succeed(null)
    const at = read(key)
    return at === null ? Effect.fail(notThisTools) : Effect.succeed(at)
  },
  encode: (key) => encodeCursor(wire(key))
})

/** A text on the wire (a task's id). */
export const isText = (v: string | number): v is string => typeof v === "string"

/** What one field of a cursor holds on the wire. */
type Rule<A extends string | number> = (v: string | number) => v is A
type Place = Record<string, string | number>

/**
 * A cursor of several fields, read and written by name: the values in the order of `rules` (the
 * form on the wire, so a client's saved cursor still reads) become a struct of those names, each
 * kept to its rule, and back. One of another length, or with a value its rule refuses, is not this tool's.
 */
export const placeCursor = <Key extends Place>(
  rules: { readonly [K in keyof Key]: Rule<Key[K]> }
): NamedCursor<Key, ReadonlyArray<Key[keyof Key]>> => {
  const fields = Object.keys(rules) as Array<keyof Key & string>
  return cursorOf(
    (key) =>
      key.length === fields.length && fields.every((f, i) => rules[f](key[i]!))
        ? Object.fromEntries(fields.map((f, i) => [f, key[i]])) as Key
        : null,
    (at): ReadonlyArray<Key[keyof Key]> => fields.map((f) => at[f])
  )
}

/** A cursor of several whole numbers, read and written by name (`placeCursor`, every field whole). */
export const namedCursor = <const F extends ReadonlyArray<string>>(
  ...fields: F
): NamedCursor<{ readonly [K in F[number]]: number }> =>
  placeCursor<{ readonly [K in F[number]]: number }>(
    Object.fromEntries(fields.map((f) => [f, isWhole])) as { readonly [K in F[number]]: Rule<number> }
  )

/**
 * A whole number from `min` to `max`, `what` as its description. One message for every way to miss
 * ("5", 1.5, 0 and max+1 all get the rule, never the value); `keywords` are its JSON Schema's own.
 */
export const wholeNumber = (min: number, max: number, what: string, keywords: Record<string, number>) =>
  Schema.Int.pipe(
    Schema.between(min, max),
    Schema.annotations({
      message: () => ({ message: `must be a whole number from ${min} to ${max}`, override: true }),
      description: what,
      jsonSchema: { type: "integer", ...keywords, description: what }
    })
  )

/**
 * The `limit` input field of a list: a whole number from 1 to `max`, `fallback` when left out.
 * The JSON Schema carries a top-level `type` and the `default`, so every client sends a number;
 * the range and default are the schema's own keywords: the description does not repeat them.
 */
export const pageLimit = (fallback: number, max: number, what = "Page size") =>
  Schema.optionalWith(wholeNumber(1, max, what, { minimum: 1, maximum: max, default: fallback }), {
    default: () => fallback
  })

/** The `next_cursor` output field: null on the last page. */
export const NextCursor = Schema.NullOr(Schema.String).annotations({
  description: "Pass as cursor to read the next page; null when this was the last page"
})

/**
 * The most a page may cost (see replyCost: its JSON plus its text rendering), so a whole reply stays
 * well under 1 MiB, what MCP clients read without closing the connection. Lists are cut at whole
 * items to fit and say so with next_cursor.
 */
export const replyBudgetBytes = 400 * 1024

/** No reply of any tool is sent above this (src/mcp/callTool.ts answers `internal` instead). */
export const replyMaxBytes = 1024 * 1024

/** UTF-8 bytes of a string, counted without encoding it (a copy of every reply cost ~7 us an item). */
const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8")

// JSON.stringify answers undefined for undefined (and functions): no bytes, as TextEncoder counted it.
export const jsonBytes = (value: unknown): number => utf8Bytes(JSON.stringify(value) ?? "")

/**
 * What one item spends in the reply, measured on the bytes it really takes for any text, not
 * estimated from its length. structuredContent holds the item's JSON as UTF-8 (JSON.stringify
 * leaves DEL, C1 controls and tag characters raw and writes a lone surrogate as `\udxxx`). The
 * text block quotes the same strings with every unseen character escaped (`escapeUnseen`: DEL is 1
 * byte in the JSON and `\u007f` in the text) and is itself a JSON string in the reply, so each of
 * its backslashes and quotes is escaped once more. The text shows a subset of the item's JSON
 * strings, and short ids, ages and statuses in place of whole ids, stamps and keys, so this bounds
 * the item's share of the reply from above (test/rules/replyBytes.test.ts holds it to
 * JSON.stringify of real replies).
 */
export const replyCost = (value: unknown): number => {
  const json = JSON.stringify(value) ?? ""
  return utf8Bytes(json) + utf8Bytes(JSON.stringify(escapeUnseen(json)))
}

/**
 * What a reply spends besides its items' replyCost: the envelope, the untrusted-data header, list
 * titles, the cursor (structured and quoted in the text), a briefing's stamps.
 */
export const replyFrameBytes = 4 * 1024

/**
 * How many of `items`, from the front, fit in `budget` bytes of reply (at least `atLeast`, one by
 * default, so a page always moves forward; one item is bounded by the input limits), and the bytes
 * those take, so a caller spending one budget over several lists costs each item once.
 */
export const fit = <A>(
  items: ReadonlyArray<A>,
  budget: number,
  atLeast = 1
): { readonly count: number; readonly used: number } => {
  let used = 0
  for (let i = 0; i < items.length; i++) {
    const cost = replyCost(items[i]) + 1
    if (used + cost > budget) {
      const count = Math.max(i, Math.min(atLeast, items.length))
      for (let j = i; j < count; j++) used += j === i ? cost : replyCost(items[j]) + 1
      return { count, used }
    }
    used += cost
  }
  return { count: items.length, used }
}

/**
 * How many of `items`, from the end, fit in `budget` bytes when each also spends what its
 * `extras` cost (a context page's facts and the decisions they lost, which the reply lists beside
 * them): at least one, so a page moves forward.
 */
export const fitFromEnd = <A, X>(
  items: ReadonlyArray<A>,
  extras: (a: A) => ReadonlyArray<X>,
  budget: number
): number => {
  let used = 0
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!
    used += extras(item).reduce((sum, x) => sum + replyCost(x) + 1, replyCost(item) + 1)
    if (used > budget) return Math.max(items.length - 1 - i, 1)
  }
  return items.length
}

/** How many of `items` fit in `budget` bytes (see `fit`). */
export const fitting = <A>(items: ReadonlyArray<A>, budget: number, atLeast = 1): number =>
  fit(items, budget, atLeast).count

/**
 * One page of `rows` (read with `limit + 1` so the query tells whether more remain): the first
 * items that fit both `limit` and `budget`, and the cursor after the last one kept.
 */
export const page = <A>(
  rows: ReadonlyArray<A>,
  limit: number,
  keyOf: (a: A) => CursorKey,
  budget = replyBudgetBytes
): { readonly items: ReadonlyArray<A>; readonly next_cursor: string | null } => {
  const kept = rows.slice(0, Math.min(limit, fitting(rows.slice(0, limit), budget)))
  const last = kept[kept.length - 1]
  return {
    items: kept,
    next_cursor: rows.length > kept.length && last !== undefined ? encodeCursor(keyOf(last)) : null
  }
}

/**
 * Bytes of JSON per o200k token at the low end of what bench:tokens measures (2.6 for facts heavy
 * with UUIDs, 2.8 for CJK text, 3.6 for English prose), so an estimate from it errs high. Counting
 * with the real tokenizer took ~70 ms for a 60 KB page: too dear for every reply.
 */
export const jsonBytesPerToken = 2.5

/**
 * A token budget in replyCost units: replyCost counts an item's JSON about twice (structuredContent
 * and the text block), and the larger reading (the JSON, which some clients hand the model) is the
 * one held to the budget.
 */
export const budgetForTokens = (maxTokens: number): number => Math.floor(maxTokens * jsonBytesPerToken * 2)

/** The running call's reply budget in replyCost units; `max_tokens` lowers it (src/mcp/callTool.ts). */
export const replyBudget: FiberRef.FiberRef<number> = FiberRef.unsafeMake(replyBudgetBytes)

/** What the running call may spend on its lists: its own budget, at most `cap`. */
export const currentBudget = (cap = replyBudgetBytes): Effect.Effect<number> =>
  Effect.map(FiberRef.get(replyBudget), (b) => Math.min(b, cap))

const tokensMax = 100_000
/** The `max_tokens` input of a list tool. */
// No model asks for a budget under 100 tokens (no fact fits one): the decoder names the floor, the listing does not.
export const MaxTokens = Schema.optional(wholeNumber(100, tokensMax, "Reply token cap", {}))

/** The most facts a read counts as left out by its status filter (layers/factStore/currentState.ts). */
export const leftOutCap = 1000
