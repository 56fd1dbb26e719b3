import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
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
