import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { relayStack } from "../../src/layers/assembly/stacks.js"
import { statement } from "../../src/layers/database/decodeRows.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ok } from "../support/runTool.js"
import { droppedOnRelease, testGraphName, testSettings } from "../support/testLayer.js"

/**
 * relay_get_current_state's first window is learned from the graph's own spacing (currentState.ts):
 * a memory written every second narrows it from an hour to a minute, so the sort holds about a page,
 * and a page that needs older facts still widens to them. The window each read asks for is taken
 * from the real statements on the real database.
 */
const firstWindows: Array<number> = []
const counted = (db: GraphDatabase["Type"]): GraphDatabase["Type"] => ({
  ...db,
  read: statement((cypher, params, row) => {
    if (cypher.includes("anchor - $window")) firstWindows.push(Number(params?.["window"]))
    return row === undefined ? db.read(cypher, params) : db.read(cypher, params ?? {}, row)
  })
})
const stack = relayStack(testSettings(testGraphName("current_windows")), { wrap: counted })

const save = (content: string) =>
  Effect.map(ok("relay_save_fact", { content, written_by: "w", session_id: "s" }), (r) => r.fact.id)

const minute = 60_000

layer(droppedOnRelease(stack))("relay_get_current_state's windows", (it) => {
  it.effect(
    "a memory written every second narrows the first window to a minute; paging still reaches facts days older",
    () =>
      Effect.gen(function*() {
        const start = Date.parse("2026-05-01T00:00:00.000Z")
        yield* TestClock.setTime(start)
        const ids: Array<string> = []
        for (let n = 0; n < 5; n++) ids.push(yield* save(`old fact ${n}`))
        yield* TestClock.setTime(start + 3 * 24 * 60 * minute)
        for (let n = 0; n < 100; n++) {
          yield* TestClock.adjust(1000)
          ids.push(yield* save(`busy fact ${n}`))
        }
        // Unknown at first: an hour. Each read learns, and the window narrows to the narrowest, a minute.
        const firsts: Array<number> = []
        for (let n = 0; n < 8; n++) {
          firstWindows.length = 0
          const { facts } = yield* ok("relay_get_current_state", { limit: 20 })
          expect(facts.map((f) => f.id)).toEqual(ids.slice(-20).reverse())
          firsts.push(firstWindows[0]!)
        }
        expect(firsts[0]).toBe(60 * minute)
        expect(firsts[firsts.length - 1]).toBe(minute)
        // Every fact once, newest first, through windows narrower than the gap of three days.
        const seen: Array<string> = []
        let cursor: string | null = null
        do {
          const page: { facts: ReadonlyArray<{ id: string }>; next_cursor: string | null } = yield* ok(
            "relay_get_current_state",
            { limit: 20, ...(cursor === null ? {} : { cursor }) }
          )
          seen.push(...page.facts.map((f) => f.id))
          cursor = page.next_cursor
        } while (cursor !== null)
        expect(seen).toEqual([...ids].reverse())
      }),
    60_000
  )
})
