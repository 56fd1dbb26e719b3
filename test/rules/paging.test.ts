import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ImpactCursor, impactNumbers } from "../../src/domain/chainPaging.js"
import { ImportantCursor } from "../../src/domain/graphRank.js"
import { Cursor, encodeCursor, fit, namedCursor, replyCost } from "../../src/domain/paging.js"

/** Items of any size and text (quotes, backslashes and controls cost more in the reply). */
const Item = Schema.Struct({ text: Schema.String, n: Schema.Number })

const costOf = (items: ReadonlyArray<unknown>) => items.reduce<number>((sum, x) => sum + replyCost(x) + 1, 0)

describe("fitting a list into the reply's byte budget", () => {
  it.prop(
    "the longest prefix within the budget (at least `atLeast`), and exactly the bytes that prefix takes",
    [Schema.Array(Item), Schema.Int.pipe(Schema.between(0, 400)), Schema.Literal(0, 1)],
    ([items, budget, atLeast]) => {
      const { count, used } = fit(items, budget, atLeast)
      expect(used).toBe(costOf(items.slice(0, count)))
      if (count < items.length) expect(costOf(items.slice(0, count + 1))).toBeGreaterThan(budget)
      if (count > Math.min(atLeast, items.length)) expect(used).toBeLessThanOrEqual(budget)
      expect(count).toBeGreaterThanOrEqual(Math.min(atLeast, items.length))
    },
    { fastCheck: { numRuns: 500 } }
  )
})

describe("a cursor of named numbers", () => {
  const Place = namedCursor("snap", "key", "parent")
  const decoded = (text: string) => Effect.runSync(Effect.either(Place.decode(Schema.decodeSync(Cursor)(text))))

  it("is on the wire the numbers in field order, as every cursor was, and reads back by name", () => {
    const text = Place.encode({ snap: 5, key: 7, parent: 9 })
    expect(text).toBe(encodeCursor([5, 7, 9]))
    expect(decoded(text)).toMatchObject({ _tag: "Right", right: { snap: 5, key: 7, parent: 9 } })
    expect(Effect.runSync(Place.decode(undefined))).toBeNull()
  })

  it("one of another length or with a text in it is invalid_input naming the cursor", () => {
    for (const text of [encodeCursor([5, 7]), encodeCursor([5, 7, 9, 1]), encodeCursor([5, "x", 9])]) {
      expect(decoded(text)).toMatchObject({ _tag: "Left", left: { _tag: "InvalidInput", message: /^cursor: / } })
    }
  })
})

describe("the impact and importance cursors, by name", () => {
  const impactOf = (text: string) => Effect.runSync(Effect.either(Schema.decode(ImpactCursor)(text)))

  it("read the numbers clients already hold and write the same numbers back", () => {
    const own = encodeCursor([2, 1700000000000, 41])
    expect(impactOf(own)).toMatchObject({ _tag: "Right", right: { distance: 2, createdAt: 1700000000000, node: 41 } })
    // A revision's stale page: its stamp, and `until` left off when it is that same stamp.
    const revised = encodeCursor([1, 5, 7, 90])
    expect(impactOf(revised)).toMatchObject({ right: { distance: 1, createdAt: 5, node: 7, revision: 90, until: 90 } })
    const held = encodeCursor([1, 5, 7, 90, 95])
    expect(impactOf(held)).toMatchObject({ right: { revision: 90, until: 95 } })
    for (const text of [own, revised, held]) {
      const at = Schema.decodeSync(ImpactCursor)(text)
      expect(Schema.encodeSync(ImpactCursor)(at)).toBe(text)
      expect(encodeCursor(impactNumbers(at))).toBe(text)
    }
    const ranked = ImportantCursor.encode({ rank: 123456789, at: 1700000000000 })
    expect(ranked).toBe(encodeCursor([123456789, 1700000000000]))
    expect(Effect.runSync(ImportantCursor.decode(Schema.decodeSync(Cursor)(ranked)))).toEqual({
      rank: 123456789,
      at: 1700000000000
    })
  })

  it("refuse another length, a text or a fraction in the numbers", () => {
    for (const key of [[1, 2], [1, 2, 3, 4, 5, 6], ["a", 1, 2], [1.5, 2, 3], [1, 2, 3, "x"]]) {
      expect(impactOf(encodeCursor(key))._tag, JSON.stringify(key)).toBe("Left")
    }
    for (const key of [[1], [1, 2, 3], ["a", 1], [1, 0.5]]) {
      const read = Effect.runSync(Effect.either(ImportantCursor.decode(key)))
      expect(read, JSON.stringify(key)).toMatchObject({ _tag: "Left", left: { _tag: "InvalidInput" } })
    }
  })
})
