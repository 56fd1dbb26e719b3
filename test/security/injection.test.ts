import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type { Fact } from "../../src/domain/fact.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { connectRelay } from "../support/mcpClient.js"
import { ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"
import { outputOf } from "../support/toolOutputs.js"

/**
 * Strings aimed at the way parameters reach FalkorDB: the npm client splices them into the query
 * text as `CYPHER name="..."` with only `"` and `\` escaped, so quotes, backslashes (a trailing one
 * above all), braces, `$`, backticks, newlines and comment markers are the ones that matter.
 * NUL and unpaired surrogates are refused at validation (see validation.test.ts and SECURITY.md).
 */
const adversarial: ReadonlyArray<string> = [
  "it's a single quote",
  "a \"double\" quote",
  "'}) MATCH (n) DETACH DELETE n //",
  "\"}) MATCH (n) DETACH DELETE n //",
  "\" }) MATCH (n) DETACH DELETE n RETURN 1 //",
  "x\" RETURN 1 UNION MATCH (n) DETACH DELETE n //",
  "ends with a backslash \\",
  "two at the end \\\\",
  "\\\" escaped quote at the start",
  "backslash-n as text: \\n, \\t, \\u0041, \\x41, \\0",
  "C:\\Users\\dev\\AppData\\Local\\relay\\",
  "braces {id: 'x'} and {{template}} and ${content}",
  "$id $content $now $parentId: parameters by name",
  "CYPHER id=\"00000000-0000-0000-0000-000000000000\" MATCH (n) RETURN n",
  "`backticks` and ```fenced``` and `Fact`",
  "line one\nline two\r\nline three\rline four",
  "tab\tseparated\tvalues",
  "/* block comment */ // line comment -- sql comment",
  "); CALL db.labels() YIELD label RETURN label //",
  "emoji 🦊🧠👩🏽‍💻 and flags 🇩🇪🇯🇵",
  "Русский текст, 中文字符, 日本語のテキスト, 한국어",
  "עברית ومعها العربية mixed with LTR",
  "\u202eRTL override\u202c and \u2066isolate\u2069 and zero\u200bwidth and joiner\u200d",
  "line\u2028separator and paragraph\u2029separator",
  "controls \u0001\u0002\u001b[31mred\u001b[0m \u007f",
  "combining e\u0301 vs \u00e9 and ﬁ ligature",
  "\\".repeat(300),
  "'\"`$\\{}[]()<>;:|&!?#%^*~=+-_.,@"
]

const save = (content: string, extra: Record<string, unknown> = {}) =>
  ok("relay_save_fact", { content, written_by: "fuzzer", session_id: "injection", ...extra })

const Count = Schema.Struct({ n: Schema.Number })

const graphShape = Effect.flatMap(GraphDatabase, (db) =>
  Effect.all({
    facts: db.read("MATCH (f:Fact) RETURN count(f) AS n", {}, Count),
    // Search's term counts (one Term node a distinct word) grow with the words; every other node is counted.
    nodes: db.read("MATCH (n) WHERE NOT n:Term RETURN count(n) AS n", {}, Count),
    buildsOn: db.read("MATCH ()-[r:BUILDS_ON]->() RETURN count(r) AS n", {}, Count),
    supersedes: db.read("MATCH ()-[r:SUPERSEDES]->() RETURN count(r) AS n", {}, Count),
    labels: db.read("MATCH (n) RETURN DISTINCT labels(n)[0] AS l ORDER BY l", {}, Schema.Struct({ l: Schema.String }))
  })).pipe(Effect.map((r) => ({
    facts: r.facts[0]?.n,
    nodes: r.nodes[0]?.n,
    buildsOn: r.buildsOn[0]?.n,
    supersedes: r.supersedes[0]?.n,
    labels: r.labels.map((x) => x.l)
  })))

layer(relayTestLayer("injection"))("Cypher injection", (it) => {
  it.effect("adversarial content is stored and read back exactly, and the graph stays intact", () =>
    Effect.gen(function*() {
      const canary = yield* save("canary: this fact must survive")
      const before = yield* graphShape
      const saved: Array<{ id: string; content: string }> = []
      for (const content of adversarial) {
        const r = yield* save(content, { parent_fact_id: canary.fact.id })
        // Content is trimmed on save, by design; nothing else changes.
        expect(r.fact.content).toBe(content.trim())
        saved.push({ id: r.fact.id, content: content.trim() })
      }
      for (const { content, id } of saved) {
        const { chain } = yield* ok("relay_get_context", { fact_id: id })
        expect(chain.map((f) => f.content)).toEqual([canary.fact.content, content])
      }
      // A page is cut to the reply budget (backslash-heavy text costs the most), so read every page.
      const facts: Array<Fact> = []
      for (let cursor: string | undefined, pages = 0; pages < 10; pages++) {
        const state = yield* ok("relay_get_current_state", {
          session_id: "injection",
          limit: 100,
          ...(cursor ? { cursor } : {})
        })
        facts.push(...state.facts)
        if (state.next_cursor === null) break
        cursor = state.next_cursor
      }
      expect(facts).toHaveLength(saved.length + 1)
      expect(new Set(facts.map((f) => f.content))).toEqual(
        new Set([canary.fact.content, ...saved.map((s) => s.content)])
      )
      const briefing = yield* ok("relay_get_briefing", { my_name: "reader", since: "1970-01-01T00:00:00Z" })
      const byId = new Map(briefing.new_facts.map((f) => [f.id, f.content]))
      for (const { content, id } of saved) expect(byId.get(id)).toBe(content)

      expect(yield* graphShape).toEqual({
        ...before,
        facts: before.facts! + adversarial.length,
        // ...and one ForkMark: the adversarial siblings differ, so the canary became a forked parent;
        // and the reader's name (an Agent node: names compare without case, policies/agentNames.ts).
        nodes: before.nodes! + adversarial.length + 2,
        buildsOn: before.buildsOn! + adversarial.length,
        labels: ["Agent", "Fact", "ForkMark", "RelayClock", "Term"]
      })
    }))

  it.effect("adversarial reasons are stored as given and create exactly one edge each", () =>
    Effect.gen(function*() {
      const before = yield* graphShape
      for (const reason of adversarial.filter((s) => s.trim().length <= 500)) {
        const winner = yield* save(`winner for ${reason.slice(0, 20)}`)
        const loser = yield* save(`loser for ${reason.slice(0, 20)}`)
        const r = yield* ok("relay_resolve_conflict", {
          winner_fact_id: winner.fact.id,
          loser_fact_id: loser.fact.id,
          reason,
          resolved_by: "judge"
        })
        expect(r.reason).toBe(reason.trim())
        expect(r.loser!.status).toBe("superseded")
      }
      const briefing = yield* ok("relay_get_briefing", { my_name: "reader", since: "1970-01-01T00:00:00Z" })
      expect(new Set(briefing.decisions.map((d) => d.reason))).toEqual(
        new Set(adversarial.filter((s) => s.trim().length <= 500).map((s) => s.trim()))
      )
      const after = yield* graphShape
      const n = adversarial.filter((s) => s.trim().length <= 500).length
      expect(after.supersedes).toBe(before.supersedes! + n)
      expect(after.facts).toBe(before.facts! + 2 * n)
    }))
})

describe("Cypher injection through the MCP client", () => {
  it("round-trips adversarial content through JSON-RPC and the database unchanged", async () => {
    const relay = await connectRelay()
    try {
      const picked = adversarial.filter((_, i) => i % 3 === 0)
      for (const content of picked) {
        const r = await relay.call("relay_save_fact", { content, written_by: "fuzzer", session_id: "mcp" })
        expect(r.isError).toBeUndefined()
        expect(outputOf(r).fact.content).toBe(content.trim())
      }
      const state = await relay.call("relay_get_current_state", { limit: 100 })
      expect(outputOf(state).facts.map((f) => f.content).reverse()).toEqual(picked.map((s) => s.trim()))
    } finally {
      await relay.close()
    }
  })
})
