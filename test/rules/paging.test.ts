import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { fit, replyCost } from "../../src/domain/paging.js"

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
