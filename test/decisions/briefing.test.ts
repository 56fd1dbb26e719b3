import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { resolveArgs } from "../support/fork.js"
import { failed, ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"
import type { OutputOf } from "../support/toolOutputs.js"

/** Briefing windows on a TestClock, through the same path as the MCP edge. */
const T0 = Date.parse("2026-03-01T00:00:00.000Z")
const hour = 60 * 60 * 1000
const iso = (ms: number) => new Date(ms).toISOString()

const save = (content: string, written_by: string, extra: Record<string, unknown> = {}) =>
  ok("relay_save_fact", { content, written_by, session_id: `${written_by}-1`, ...extra })

const brief = (my_name: string, since?: string) =>
  ok("relay_get_briefing", since === undefined ? { my_name } : { my_name, since })
type Briefing = OutputOf<"relay_get_briefing">
const contents = (b: Briefing) => b.new_facts.map((f) => f.content)

layer(relayTestLayer("brief_window"))("briefing window", (it) => {
  it.effect("explicit since: exclusive at since, inclusive at as_of; own facts left out", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const f1 = yield* save("cursor at T0", "cursor")
      expect(f1.fact.created_at).toBe(iso(T0))
      yield* TestClock.adjust(hour)
      yield* save("cursor at T0+1h", "cursor")
      yield* save("claude at T0+1h", "claude-desktop")

      yield* TestClock.setTime(T0 + 24 * hour)
      const b1 = yield* brief("claude-desktop", iso(T0))
      expect(b1.as_of).toBe(iso(T0 + 24 * hour))
      expect(b1.since).toBe(iso(T0))
      expect(contents(b1)).toEqual(["cursor at T0+1h"])
      // A since exactly at the second fact leaves it out.
      expect(contents(yield* brief("claude-desktop", iso(T0 + hour)))).toEqual([])
      // The other assistant sees claude's fact, not its own.
      expect(contents(yield* brief("cursor", iso(T0)))).toEqual(["claude at T0+1h"])

      // as_of is inclusive: a fact stamped at now is in a briefing made at the same instant.
      yield* TestClock.setTime(T0 + 30 * hour)
      const now = yield* save("cursor at T0+30h", "cursor")
      expect(now.fact.created_at).toBe(iso(T0 + 30 * hour))
      const b2 = yield* brief("claude-desktop", iso(T0 + 30 * hour - 1))
      expect(b2.as_of).toBe(iso(T0 + 30 * hour))
      expect(contents(b2)).toEqual(["cursor at T0+30h"])
      // and chaining from that as_of shows it no more.
      const b3 = yield* brief("claude-desktop", b2.as_of)
      expect(b3.since).toBe(b2.as_of)
      expect(contents(b3)).toEqual([])
    }))
})

layer(relayTestLayer("brief_since"))("briefing since", (it) => {
  it.effect("since must be ISO 8601; an offset form means the same instant; as_of round-trips", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      yield* save("at T0", "cursor")
      yield* TestClock.adjust(1)
      yield* save("at T0+1ms", "cursor")
      yield* TestClock.adjust(hour)

      for (const bad of ["yesterday", "1772323200000", "2026-03-01 00:00", "", "2026-13-45T99:99:99Z"]) {
        const e = yield* failed("relay_get_briefing", { my_name: "claude-desktop", since: bad })
        expect(e.code).toBe("invalid_input")
        expect(e.message).toMatch(/^since/)
      }
      // 01:00+01:00 is T0: the fact stamped at T0 is out, the one a millisecond later is in.
      const b = yield* brief("claude-desktop", "2026-03-01T01:00:00+01:00")
      expect(b.since).toBe(iso(T0))
      expect(contents(b)).toEqual(["at T0+1ms"])
      // as_of is exact to the millisecond through its ISO form.
      expect(iso(Date.parse(b.as_of))).toBe(b.as_of)
      expect(Date.parse(b.as_of)).toBe(T0 + 1 + hour)
    }))
})

layer(relayTestLayer("brief_decisions"))("briefing decisions and conflicts", (it) => {
  it.effect("decisions by others are in with winner, loser, reason and who decided; own decisions are not; open conflicts always", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const root = yield* save("Tokens need a store", "claude-desktop")
      const a = yield* save("Store tokens in cookies", "claude-desktop", { parent_fact_id: root.fact.id })
      const b = yield* save("Store tokens in Redis", "cursor", { parent_fact_id: root.fact.id })
      const c = yield* save("Store tokens in Postgres", "zed", { parent_fact_id: root.fact.id })
      yield* TestClock.adjust(hour)
      const start = yield* brief("cursor")
      // Conflicts are for everyone, whoever wrote them: the forked parent with its open children, newest first.
      expect(start.open_conflicts.map((x) => x.children.map((f) => f.content))).toEqual([
        ["Store tokens in Postgres", "Store tokens in Redis", "Store tokens in cookies"]
      ])
      expect(start.open_conflicts[0]!.parent.id).toBe(root.fact.id)
      expect(start.open_conflicts[0]!.children_total).toBe(3)
      expect(start.next_cursor).toBeNull()

      yield* TestClock.adjust(1000)
      yield* ok("relay_resolve_conflict", resolveArgs(a.fact.id, b.fact.id, "no extra service", "claude-desktop"))
      yield* TestClock.adjust(1000)
      yield* ok("relay_resolve_conflict", resolveArgs(a.fact.id, c.fact.id, "cookies win", "cursor"))

      const forCursor = yield* brief("cursor", start.as_of)
      expect(forCursor.new_facts).toEqual([])
      expect(forCursor.decisions).toHaveLength(1)
      expect(forCursor.decisions[0]).toMatchObject({
        reason: "no extra service",
        resolved_by: "claude-desktop",
        created_at: iso(T0 + hour + 1000),
        winner: { id: a.fact.id, status: "active" },
        loser: { id: b.fact.id, status: "superseded" }
      })
      expect(forCursor.open_conflicts).toEqual([])

      const forZed = yield* brief("zed", start.as_of)
      expect(forZed.decisions.map((d) => [d.resolved_by, d.loser.content])).toEqual([
        ["claude-desktop", "Store tokens in Redis"],
        ["cursor", "Store tokens in Postgres"]
      ])
      // An old since brings the facts back, own ones still left out, oldest first.
      const all = yield* brief("zed", iso(T0 - 1))
      expect(contents(all)).toEqual(["Tokens need a store", "Store tokens in cookies", "Store tokens in Redis"])
    }))
})
