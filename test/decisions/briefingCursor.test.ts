import { expect, layer } from "@effect/vitest"
import { Effect, Schema, TestClock } from "effect"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { failed, ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"
import type { OutputOf } from "../support/toolOutputs.js"

/**
 * The automatic briefing (no `since`): each name's cursor in the graph, on a TestClock, through the
 * same path as the MCP edge. Before the cursor, a briefing without since was always the last 24 hours:
 * a fact 25 hours old was never shown, and every fact of the last day was shown on every call.
 */
const T0 = Date.parse("2026-03-01T00:00:00.000Z")
const hour = 60 * 60 * 1000
const day = 24 * hour
const iso = (ms: number) => new Date(ms).toISOString()

const save = (content: string, written_by: string, extra: Record<string, unknown> = {}) =>
  ok("relay_save_fact", { content, written_by, session_id: `${written_by}-1`, ...extra })
const auto = (my_name: string, extra: Record<string, unknown> = {}) => ok("relay_get_briefing", { my_name, ...extra })
type Briefing = OutputOf<"relay_get_briefing">
const contents = (b: Briefing): Array<string> => b.new_facts.map((f) => f.content)

/** Every page of a briefing from its first reply, as the list of fact contents, in order. */
const allPages = (my_name: string, first: Briefing, limit: number) =>
  Effect.gen(function*() {
    const seen = [...contents(first)]
    for (let cursor: string | null = first.next_cursor; cursor !== null;) {
      const page = yield* ok("relay_get_briefing", { my_name, cursor, limit })
      expect(page.as_of).toBe(first.as_of)
      seen.push(...contents(page))
      cursor = page.next_cursor
    }
    return seen
  })

const cursorNodes = Effect.flatMap(
  GraphDatabase,
  (db) =>
    db.read(
      "MATCH (c:BriefingCursor)-[r:READ_TO]->(c) RETURN c.name AS name, r.as_of AS as_of ORDER BY name",
      {},
      Schema.Struct({ name: Schema.String, as_of: Schema.Number })
    )
)

layer(relayTestLayer("brief_cursor_first"))("the first briefing of a name", (it) => {
  it.effect("covers the 7 days before as_of, exclusive at its start; then continues where it ended", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      yield* save("a week and a bit old", "cursor")
      yield* TestClock.setTime(T0 + 2 * hour)
      yield* save("six days and 22 hours old", "cursor")
      yield* TestClock.setTime(T0 + 7 * day + hour)
      yield* save("new", "cursor")

      const first = yield* auto("claude")
      expect(first.as_of).toBe(iso(T0 + 7 * day + hour))
      expect(first.since).toBe(iso(T0 + hour))
      expect(contents(first)).toEqual(["six days and 22 hours old", "new"])
      // One cursor node, at what was served: the whole window.
      expect(yield* cursorNodes).toEqual([{ name: "claude", as_of: T0 + 7 * day + hour }])

      // Thirty days later the next one still starts where the first ended, not 7 days back.
      yield* TestClock.setTime(T0 + 37 * day)
      yield* save("a month later", "cursor")
      const second = yield* auto("claude")
      expect(second.since).toBe(first.as_of)
      expect(contents(second)).toEqual(["a month later"])
      // Nothing new: an empty briefing, and the cursor moved to its as_of.
      yield* TestClock.adjust(hour)
      const third = yield* auto("claude")
      expect(third.since).toBe(second.as_of)
      expect(contents(third)).toEqual([])
      expect(yield* cursorNodes).toEqual([{ name: "claude", as_of: Date.parse(third.as_of) }])
    }))
})

layer(relayTestLayer("brief_cursor_secret"))("a name that holds a secret", (it) => {
  it.effect("is refused like every other name, and no cursor is kept for it", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const error = yield* failed("relay_get_briefing", { my_name: "ghp_R4nd0mT0k3nV4lu3Xq9Lk2Zp7Tn1Vb5Mc8Hd3" })
      expect(error.code).toBe("secret_detected")
      expect(error.message.startsWith("my_name looks like it contains a credential (GitHub token)")).toBe(true)
      expect(yield* cursorNodes).toEqual([])
    }))
})

layer(relayTestLayer("brief_cursor_names"))("cursors per name", (it) => {
  it.effect("brief, others write, brief again: exactly the new facts and decisions, once; a briefing with since moves nothing", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const root = yield* save("tokens need a store", "cursor")
      const a = yield* save("cookies", "cursor", { parent_fact_id: root.fact.id })
      const b = yield* save("redis", "zed", { parent_fact_id: root.fact.id })
      yield* TestClock.adjust(hour)
      const claude1 = yield* auto("claude")
      expect(contents(claude1)).toEqual(["tokens need a store", "cookies", "redis"])
      const zed1 = yield* auto("zed")
      expect(contents(zed1)).toEqual(["tokens need a store", "cookies"])

      yield* TestClock.adjust(hour)
      yield* save("claude's own", "claude")
      yield* save("by zed", "zed")
      yield* ok("relay_resolve_conflict", {
        winner_fact_id: a.fact.id,
        loser_fact_id: b.fact.id,
        reason: "fewer services",
        resolved_by: "cursor"
      })
      yield* TestClock.adjust(hour)

      // A look back with since shows old facts again and leaves claude's cursor where it was.
      const lookBack = yield* auto("claude", { since: iso(T0 - 1) })
      expect(contents(lookBack)).toEqual(["tokens need a store", "cookies", "redis", "by zed"])
      const claude2 = yield* auto("claude")
      expect(claude2.since).toBe(claude1.as_of)
      expect(contents(claude2)).toEqual(["by zed"])
      expect(claude2.decisions.map((d) => d.reason)).toEqual(["fewer services"])
      const claude3 = yield* auto("claude")
      expect(contents(claude3)).toEqual([])
      expect(claude3.decisions).toEqual([])

      // zed's cursor is its own: it sees claude's fact and the decision, not its own fact.
      const zed2 = yield* auto("zed")
      expect(zed2.since).toBe(zed1.as_of)
      expect(contents(zed2)).toEqual(["claude's own"])
      expect(zed2.decisions.map((d) => d.reason)).toEqual(["fewer services"])
      expect((yield* cursorNodes).map((c) => c.name)).toEqual(["claude", "zed"])
    }))
})

layer(relayTestLayer("brief_cursor_pages"))("cursors and pages", (it) => {
  it.effect("each page moves the cursor to what it served: a session that stops paging skips nothing", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const ids: Array<string> = []
      for (let i = 1; i <= 7; i++) {
        ids.push((yield* save(`fact ${i}`, "cursor")).fact.id)
        yield* TestClock.adjust(1000)
      }
      // Read one page of 3 and stop: the next automatic briefing starts after fact 3, not at as_of.
      const page1 = yield* auto("claude", { limit: 3 })
      expect(contents(page1)).toEqual(["fact 1", "fact 2", "fact 3"])
      expect(page1.next_cursor).not.toBeNull()
      yield* TestClock.adjust(1000)
      yield* save("fact 8", "cursor")
      const again = yield* auto("claude", { limit: 3 })
      expect(again.since).toBe(page1.new_facts[2]!.created_at)
      // Read to the end this time: facts 4 to 8, each once.
      const rest = yield* allPages("claude", again, 3)
      expect(rest).toEqual(["fact 4", "fact 5", "fact 6", "fact 7", "fact 8"])
      // The abandoned first window's cursor still works, but cannot move the cursor back.
      const late = yield* ok("relay_get_briefing", { my_name: "claude", cursor: page1.next_cursor, limit: 3 })
      expect(contents(late)).toEqual(["fact 4", "fact 5", "fact 6"])
      const after = yield* auto("claude")
      expect(after.since).toBe(again.as_of)
      expect(contents(after)).toEqual([])
    }))

  it.effect("two sessions of one name: the cursor keeps the furthest either served", () =>
    Effect.gen(function*() {
      // Past the first test's facts by more than the 7 days a first briefing covers (one graph per block).
      yield* TestClock.setTime(T0 + 30 * day)
      for (let i = 1; i <= 4; i++) yield* save(`shared ${i}`, "cursor")
      yield* TestClock.adjust(1000)
      const slow = yield* auto("codex", { limit: 2 })
      expect(contents(slow)).toEqual(["shared 1", "shared 2"])
      yield* TestClock.adjust(1000)
      yield* save("shared 5", "cursor")
      const fast = yield* auto("codex")
      // The second session starts where the first's page ended, and reads everything since.
      expect(fast.since).toBe(slow.new_facts[1]!.created_at)
      expect(contents(fast)).toEqual(["shared 3", "shared 4", "shared 5"])
      // The first session reads on to the end of its older window: the cursor stays at the newer as_of.
      expect(yield* allPages("codex", slow, 2)).toEqual(["shared 1", "shared 2", "shared 3", "shared 4"])
      const next = yield* auto("codex")
      expect(next.since).toBe(fast.as_of)
      expect(contents(next)).toEqual([])
    }))

  it.effect("a page cursor of one name's automatic briefing is refused under another name", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0 + 60 * day)
      for (let i = 1; i <= 3; i++) yield* save(`other ${i}`, "cursor")
      const first = yield* auto("alice", { limit: 1 })
      expect(first.next_cursor).not.toBeNull()
      const e = yield* failed("relay_get_briefing", { my_name: "mallory", cursor: first.next_cursor, limit: 1 })
      expect(e).toEqual({
        code: "invalid_input",
        message: "cursor: must be a next_cursor of a briefing for this my_name"
      })
      // A briefing with since moves no cursor, so its pages may be read under any name, as before.
      const since = yield* auto("alice", { since: iso(0), limit: 1 })
      const other = yield* ok("relay_get_briefing", { my_name: "mallory", cursor: since.next_cursor, limit: 1 })
      expect(other.as_of).toBe(since.as_of)
      expect((yield* cursorNodes).map((c) => c.name)).not.toContain("mallory")
    }))
})

layer(relayTestLayer("brief_cursor_edge"))("a cursor kept on its node by an earlier Relay", (it) => {
  it.effect("is read where it stood, and the next briefing keeps it on the edge", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      yield* save("seen before", "zed")
      yield* TestClock.setTime(T0 + hour)
      const first = yield* auto("old")
      expect(contents(first)).toEqual(["seen before"])
      // As a Relay before the READ_TO edge left it: the position on the node, no edge.
      const db = yield* GraphDatabase
      yield* db.write("MATCH (c:BriefingCursor {name: 'old'})-[r:READ_TO]->(c) SET c.as_of = r.as_of DELETE r")
      yield* TestClock.setTime(T0 + 2 * hour)
      yield* save("new since", "zed")
      yield* TestClock.setTime(T0 + 3 * hour)
      const next = yield* auto("old")
      expect(contents(next)).toEqual(["new since"])
      expect(yield* cursorNodes).toEqual([{ name: "old", as_of: Date.parse(next.as_of) }])
    }))
})
