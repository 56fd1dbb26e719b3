import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { connectRelay } from "../support/mcpClient.js"
import { failed, ok, runTool } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

const uuid = "3f1c1a52-2b7a-4a53-9f57-0d7d0f0f0f0f"
const save = (extra: Record<string, unknown> = {}) => ({
  content: "a fact",
  written_by: "claude-desktop",
  session_id: "s1",
  ...extra
})
const resolveArgs = (extra: Record<string, unknown> = {}) => ({
  winner_fact_id: uuid,
  loser_fact_id: uuid,
  reason: "because",
  resolved_by: "cursor",
  ...extra
})

/** Every node and edge in this test's graph: what a failed call must leave unchanged. */
const graphSize = Effect.flatMap(GraphDatabase, (db) =>
  db.read(
    "MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS nodes, count(r) AS edges",
    {},
    Schema.Struct({ nodes: Schema.Number, edges: Schema.Number })
  )).pipe(Effect.map((rows) => rows[0]))

/** [tool, arguments, the field the message must name] for inputs the contract refuses. */
const refused: ReadonlyArray<readonly [string, unknown, string]> = [
  // ids are UUIDs
  ["relay_get_context", { fact_id: "not-a-uuid" }, "fact_id"],
  ["relay_get_context", { fact_id: "" }, "fact_id"],
  ["relay_get_context", { fact_id: uuid.slice(0, 7) }, "fact_id"],
  ["relay_get_context", { fact_id: `${uuid}0` }, "fact_id"],
  ["relay_get_context", { fact_id: `{${uuid}}` }, "fact_id"],
  ["relay_get_context", { fact_id: uuid.replace(/-/g, "") }, "fact_id"],
  ["relay_get_context", { fact_id: 42 }, "fact_id"],
  ["relay_get_impact", { fact_id: "3f1c1a52-2b7a-4a53-9f57-0d7d0f0f0f0g" }, "fact_id"],
  ["relay_save_fact", save({ parent_fact_id: "parent-of-it" }), "parent_fact_id"],
  ["relay_resolve_conflict", resolveArgs({ winner_fact_id: "w" }), "winner_fact_id"],
  ["relay_resolve_conflict", resolveArgs({ loser_fact_id: null }), "loser_fact_id"],
  // names: ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$
  ["relay_save_fact", save({ written_by: "a".repeat(65) }), "written_by"],
  ["relay_save_fact", save({ written_by: "" }), "written_by"],
  ["relay_save_fact", save({ written_by: ".hidden" }), "written_by"],
  ["relay_save_fact", save({ written_by: "_x" }), "written_by"],
  ["relay_save_fact", save({ written_by: "-x" }), "written_by"],
  ["relay_save_fact", save({ written_by: "has space" }), "written_by"],
  ["relay_save_fact", save({ written_by: "a:b" }), "written_by"],
  ["relay_save_fact", save({ written_by: "claude\n" }), "written_by"],
  ["relay_save_fact", save({ written_by: "élodie" }), "written_by"],
  ["relay_resolve_conflict", resolveArgs({ resolved_by: "a".repeat(65) }), "resolved_by"],
  ["relay_resolve_conflict", resolveArgs({ resolved_by: "who?" }), "resolved_by"],
  ["relay_get_briefing", { my_name: "a".repeat(65) }, "my_name"],
  ["relay_get_briefing", { my_name: " me" }, "my_name"],
  // session ids: ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$
  ["relay_save_fact", save({ session_id: "s".repeat(129) }), "session_id"],
  ["relay_save_fact", save({ session_id: ":s" }), "session_id"],
  ["relay_save_fact", save({ session_id: "s/1" }), "session_id"],
  ["relay_get_current_state", { session_id: "" }, "session_id"],
  // content: 1-2000 characters after trimming, storable
  ["relay_save_fact", save({ content: "x".repeat(2001) }), "content"],
  ["relay_save_fact", save({ content: ` ${"x".repeat(2001)} ` }), "content"],
  ["relay_save_fact", save({ content: "" }), "content"],
  ["relay_save_fact", save({ content: " \n\t  " }), "content"],
  ["relay_save_fact", save({ content: "before\u0000after" }), "content"],
  ["relay_save_fact", save({ content: "lone \ud83d surrogate" }), "content"],
  ["relay_save_fact", save({ content: 7 }), "content"],
  // nothing a reader can see: zero-width, word joiner, BOM, tag characters, NEL, Hangul filler
  ["relay_save_fact", save({ content: "\u200b\u2060\ufeff" }), "content"],
  ["relay_save_fact", save({ content: " \u{e0041}\u{e0042} \u0085\u3164 " }), "content"],
  // reason: 1-500 characters after trimming
  ["relay_resolve_conflict", resolveArgs({ reason: "r".repeat(501) }), "reason"],
  ["relay_resolve_conflict", resolveArgs({ reason: "   " }), "reason"],
  ["relay_resolve_conflict", resolveArgs({ reason: "\u00ad\u200c\u061c" }), "reason"],
  // limits 1-100, whole numbers
  ...[0, 101, -1, 1.5, "5", null, true].flatMap((limit) => [
    ["relay_get_current_state", { limit }, "limit"] as const,
    ["relay_get_important_facts", { limit }, "limit"] as const
  ]),
  // since is ISO 8601 with a time and a zone
  ["relay_get_briefing", { my_name: "me", since: "yesterday" }, "since"],
  ["relay_get_briefing", { my_name: "me", since: "2026-01-01" }, "since"],
  ["relay_get_briefing", { my_name: "me", since: "2026-02-30T25:00:00Z" }, "since"],
  // required fields
  ["relay_save_fact", { written_by: "a", session_id: "s" }, "content"],
  ["relay_resolve_conflict", { winner_fact_id: uuid, loser_fact_id: uuid, resolved_by: "a" }, "reason"],
  ["relay_get_briefing", {}, "my_name"],
  // unknown fields, on every tool
  ["relay_save_fact", save({ id: uuid }), "id"],
  ["relay_save_fact", save({ created_at: 0 }), "created_at"],
  ["relay_get_context", { fact_id: uuid, depth: 3 }, "depth"],
  ["relay_get_impact", { fact_id: uuid, extra: true }, "extra"],
  ["relay_get_current_state", { limit: 5, offset: 5 }, "offset"],
  ["relay_detect_conflicts", { everything: true }, "everything"],
  ["relay_resolve_conflict", resolveArgs({ force: true }), "force"],
  ["relay_get_briefing", { my_name: "me", until: "2026-01-01T00:00:00Z" }, "until"],
  ["relay_get_important_facts", { limit: 5, algorithm: "degree" }, "algorithm"],
  ["relay_get_clusters", { min_size: 2 }, "min_size"],
  // not an object at all
  ["relay_get_context", "3f1c1a52-2b7a-4a53-9f57-0d7d0f0f0f0f", "input"],
  ["relay_get_clusters", [1, 2], "input"]
]

layer(relayTestLayer("validation"))("input validation per the contract", (it) => {
  it.effect("refuses each bad input with invalid_input naming the field, and writes nothing", () =>
    Effect.gen(function*() {
      // Something to point at, so a write that slipped through would have somewhere to land.
      const root = yield* ok("relay_save_fact", save({ content: "root" }))
      yield* ok("relay_save_fact", save({ content: "child", parent_fact_id: root.fact.id }))
      const before = yield* graphSize
      for (const [tool, args, field] of refused) {
        const error = yield* failed(tool, args)
        expect(error.code, `${tool} ${JSON.stringify(args)}`).toBe("invalid_input")
        expect(error.message.startsWith(`${field}: `), `${tool}: ${error.message}`).toBe(true)
        // The message states the rule; it never echoes what was sent.
        for (const value of Object.values(typeof args === "object" && args !== null ? args : { args })) {
          if (
            typeof value === "string" && value.trim().length >= 4 && !"claude-desktop because cursor".includes(value)
          ) {
            expect(error.message, tool).not.toContain(value)
          }
        }
      }
      expect(yield* graphSize).toEqual(before)
    }))

  it.effect("accepts the boundary values", () =>
    Effect.gen(function*() {
      const long = yield* ok(
        "relay_save_fact",
        save({
          content: `  ${"x".repeat(2000)}\n `,
          written_by: "A".repeat(64),
          session_id: `9${"s:._-".repeat(25)}ab`
        })
      )
      expect(long.fact.content).toBe("x".repeat(2000))
      expect(long.fact.written_by).toBe("A".repeat(64))
      expect(long.fact.session_id).toHaveLength(128)
      // Counted in characters (code points), as JSON Schema's maxLength counts: 2000 emoji fit.
      const emoji = yield* ok("relay_save_fact", save({ content: "🦊".repeat(2000), written_by: "9", session_id: "0" }))
      expect(emoji.fact.content).toBe("🦊".repeat(2000))
      expect((yield* failed("relay_save_fact", save({ content: "🦊".repeat(2001) }))).message)
        .toBe("content: must be 1-2000 characters after trimming (got 2001)")
      yield* ok("relay_save_fact", save({ content: "y", written_by: "a.b_c-d", session_id: "a:b.c_d-e" }))
      const other = yield* ok("relay_save_fact", save({ content: "other branch" }))
      const resolved = yield* ok("relay_resolve_conflict", {
        winner_fact_id: other.fact.id,
        loser_fact_id: long.fact.id,
        reason: ` ${"r".repeat(500)} `,
        resolved_by: "z".repeat(64)
      })
      expect(resolved.reason).toBe("r".repeat(500))
      for (const limit of [1, 100]) {
        expect((yield* ok("relay_get_current_state", { limit })).facts.length).toBeLessThanOrEqual(limit)
        expect((yield* ok("relay_get_important_facts", { limit })).facts.length).toBeLessThanOrEqual(limit)
      }
      yield* ok("relay_get_briefing", { my_name: "m".repeat(64), since: "2026-01-01T00:00:00Z" })
      yield* ok("relay_get_briefing", { my_name: "me", since: "2026-01-01T01:00:00.123+01:00" })
      // Upper-case UUIDs pass validation (they are UUIDs); Relay's own ids are lower-case.
      const upper = yield* runTool("relay_get_context", { fact_id: other.fact.id.toUpperCase() })
      expect((upper.structuredContent as { error?: { code: string } }).error?.code).not.toBe("invalid_input")
    }))

  it.effect("a failed resolution check writes no edge", () =>
    Effect.gen(function*() {
      const a = yield* ok("relay_save_fact", save({ content: "left" }))
      const b = yield* ok("relay_save_fact", save({ content: "right" }))
      const before = yield* graphSize
      const bad = yield* failed("relay_resolve_conflict", {
        winner_fact_id: a.fact.id,
        loser_fact_id: b.fact.id,
        reason: "x".repeat(501),
        resolved_by: "me"
      })
      expect(bad.code).toBe("invalid_input")
      const missing = yield* failed("relay_resolve_conflict", {
        winner_fact_id: a.fact.id,
        loser_fact_id: uuid,
        reason: "ok",
        resolved_by: "me"
      })
      expect(missing).toEqual({ code: "fact_not_found", message: `loser_fact_id: no fact with id ${uuid}` })
      const orphan = yield* failed("relay_save_fact", save({ parent_fact_id: uuid }))
      expect(orphan.code).toBe("fact_not_found")
      expect(yield* graphSize).toEqual(before)
    }))
})

describe("validation through the MCP client", () => {
  it("answers invalid_input with isError, a code-prefixed text and structuredContent.error", async () => {
    const relay = await connectRelay()
    try {
      const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
        [
          "relay_get_context",
          { fact_id: "nope" },
          "fact_id: must be an id Relay returned, or its first 8 or more characters"
        ],
        ["relay_get_clusters", { extra: 1 }, "extra: is not a field of this tool"],
        ["relay_get_current_state", { limit: "5" }, "limit: must be a whole number from 1 to 100"],
        [
          "relay_save_fact",
          save({ content: "x".repeat(2001) }),
          "content: must be 1-2000 characters after trimming (got 2001)"
        ],
        ["relay_save_fact", save({ session_id: "s".repeat(129) }), "session_id: must be 1-128 characters"]
      ]
      for (const [tool, args, message] of cases) {
        const r = await relay.call(tool, args)
        expect(r.isError).toBe(true)
        expect(errorOf(r).code).toBe("invalid_input")
        expect(errorOf(r).message.startsWith(message)).toBe(true)
        expect(r.content).toEqual([{ type: "text", text: `invalid_input: ${errorOf(r).message}` }])
      }
      const state = await relay.call("relay_get_current_state", {})
      expect(outputOf(state).facts).toEqual([])
    } finally {
      await relay.close()
    }
  })
})
