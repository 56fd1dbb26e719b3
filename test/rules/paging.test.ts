import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ImpactCursor, impactNumbers } from "../../src/domain/chainPaging.js"
import { ImportantCursor } from "../../src/domain/graphRank.js"
import {
  Cursor,
  type CursorKey,
  encodeCursor,
  fit,
  type NamedCursor,
  namedCursor,
  replyCost
} from "../../src/domain/paging.js"
import { RunsCursor } from "../../src/domain/procedures.js"
import { TasksCursor } from "../../src/domain/tasks.js"
import { CandidatesCursor } from "../../src/tools/findProcedure.js"
import { SearchCursor } from "../../src/tools/search.js"

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

describe("the task, search and procedure cursors, by name", () => {
  const refused = {
    _tag: "Left",
    left: { _tag: "InvalidInput", message: "cursor: must be a next_cursor returned by this tool" }
  }
  const decoded = <K, W extends CursorKey>(cursor: NamedCursor<K, W>, text: string) =>
    Effect.runSync(Effect.either(cursor.decode(Schema.decodeSync(Cursor)(text))))
  /** Each place is on the wire as the numbers (and a task's id) clients already hold, and reads back by name. */
  const roundTrips = <K, W extends CursorKey>(
    cursor: NamedCursor<K, W>,
    cases: ReadonlyArray<readonly [NoInfer<K>, CursorKey]>
  ) => {
    for (const [place, key] of cases) {
      const text = cursor.encode(place)
      expect(text, JSON.stringify(key)).toBe(encodeCursor(key))
      const read = Effect.runSync(cursor.decode(Schema.decodeSync(Cursor)(text)))
      expect(read).toEqual(place)
      expect(cursor.encode(read!)).toBe(text)
    }
  }
  const refuses = <K, W extends CursorKey>(cursor: NamedCursor<K, W>, keys: ReadonlyArray<CursorKey>) => {
    for (const key of keys) expect(decoded(cursor, encodeCursor(key)), JSON.stringify(key)).toMatchObject(refused)
  }
  const id = "6f1c1a52-2b7a-4a53-9f57-0d7d0f0f0f0f"

  it("relay_list_tasks: [created_at, id] as {createdAt, id}", () => {
    roundTrips(TasksCursor, [[{ createdAt: 1780272000010, id }, [1780272000010, id]]])
    refuses(TasksCursor, [[1780272000010], [1780272000010, 5], [id, 1780272000010], [1.5, id], [1, id, 2], [2, 7, 9]])
  })

  it("relay_search: [score, node] and an any-word hit's [score, node, 1] as {score, node, tier}", () => {
    roundTrips(SearchCursor, [
      [{ score: 1.2345678901234, node: 42, tier: "all" }, [1.2345678901234, 42]],
      [{ score: 0, node: 7, tier: "all" }, [0, 7]],
      [{ score: 0.333333333333333, node: 9, tier: "any" }, [0.333333333333333, 9, 1]]
    ])
    // Other tiers, scores the engine cannot give (a negative one among them), a fractional node, other tools' cursors.
    const tasks: CursorKey = [1780272000010, id]
    const procedures: CursorKey = [2, 4, 1, 0.5, 9]
    refuses(SearchCursor, [
      [0.5, 7, 0],
      [0.5, 7, 2],
      [1e-310, 5],
      [2e9, 5],
      [-1, 5],
      [0.5, 7.5],
      [1],
      tasks,
      procedures
    ])
  })

  it("relay_find_procedure: [s + 1, n + 2, tier, score, node] as the place in the order, and a run's [place]", () => {
    roundTrips(CandidatesCursor, [
      [{ success: 3, failure: 1, tier: 1, score: 2.5, node: 9 }, [4, 6, 1, 2.5, 9]],
      [{ success: 0, failure: 0, tier: 0, score: 0, node: 0 }, [1, 2, 0, 0, 0]]
    ])
    // A rate no counts give (s + 1 < 1, n + 2 < s + 2), a tier other than 0 or 1, a negative node, other lengths.
    const texts: CursorKey = [4, 6, 1, "x", 9]
    refuses(CandidatesCursor, [[0, 6, 1, 2.5, 9], [4, 4, 1, 2.5, 9], [4, 6, 2, 2.5, 9], [4, 6, 1, 2.5, -1], texts])
    refuses(CandidatesCursor, [[4, 6, 1, 2.5], [4, 6, 1, 2.5, 9, 1], [1.5, 42]])
    roundTrips(RunsCursor, [[{ place: 45 }, [45]]])
    refuses(RunsCursor, [[1.5], [1, 2], ["a"]])
  })
})
