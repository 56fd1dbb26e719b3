import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import { type OutputOf, outputOf } from "../support/toolOutputs.js"
import { checkedCaller } from "./protocol.js"

/**
 * `max_tokens` on the list tools: a page is cut at whole items so that what a model reads (counted
 * here with the real o200k tokenizer, on the larger reading: structuredContent's JSON) stays within
 * it, and next_cursor (with the same max_tokens) reads on to every item exactly once.
 */
describe("max_tokens through the MCP client", () => {
  let relay: RelayClient
  let admin: Admin
  let mcp: Awaited<ReturnType<typeof checkedCaller>>
  const saved: Array<string> = []
  const tokens = (r: { structuredContent?: unknown; content: Array<{ text?: string }> }) =>
    Math.max(countTokens(JSON.stringify(r.structuredContent)), countTokens(r.content[0]?.text ?? ""))

  beforeAll(async () => {
    ;[relay, admin] = await Promise.all([connectRelay(), connectAdmin()])
    mcp = await checkedCaller(relay)
    let parent: string | undefined
    for (let i = 0; i < 30; i++) {
      const r = await mcp.ok("relay_save_fact", {
        content: `Step ${i} of the refresh token migration: move the sessions table in batches of 500 rows, ` +
          `check each batch against the old store, and write an audit line naming the batch and the writer.`,
        written_by: "cursor",
        session_id: "m1",
        ...(parent === undefined ? {} : { parent_fact_id: parent })
      })
      parent = r.fact.id
      saved.push(r.fact.id)
    }
  })
  afterAll(async () => {
    await relay?.close()
    if (relay !== undefined) await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await admin?.close()
  })

  const pages = async <
    N extends "relay_get_current_state" | "relay_get_briefing" | "relay_search" | "relay_get_important_facts"
  >(
    tool: N,
    args: Record<string, unknown>,
    list: (s: OutputOf<N>) => ReadonlyArray<string>
  ) => {
    const seen: Array<string> = []
    const sizes: Array<number> = []
    let cursor: string | undefined
    for (let n = 0; n < 60; n++) {
      const r = await mcp.call(tool, { ...args, ...(cursor === undefined ? {} : { cursor }) })
      expect(r.isError, r.content[0]?.text).toBeFalsy()
      sizes.push(tokens(r))
      const output: OutputOf<N> & { readonly next_cursor: string | null } = outputOf(r)
      seen.push(...list(output))
      cursor = output.next_cursor ?? undefined
      if (cursor === undefined) break
    }
    return { seen, sizes }
  }

  it("cuts every list tool's page at whole facts within max_tokens, and its cursor reads on to each fact once", async () => {
    // Each case reads one tool's pages with the given extra arguments (none, then max_tokens).
    const cases: Array<[string, (extra: Record<string, unknown>) => ReturnType<typeof pages>]> = [
      [
        "relay_get_current_state",
        (extra) => pages("relay_get_current_state", { limit: 100, ...extra }, (s) => s.facts.map((f) => f.id))
      ],
      [
        "relay_get_briefing",
        (extra) =>
          pages(
            "relay_get_briefing",
            { my_name: "reader", since: "2000-01-01T00:00:00Z", limit: 200, ...extra },
            (s) => s.new_facts.map((f) => f.id)
          )
      ],
      [
        "relay_search",
        (extra) =>
          pages(
            "relay_search",
            { query: "refresh migration", limit: 50, ...extra },
            (s) => s.hits.map((h) => h.fact.id)
          )
      ],
      [
        "relay_get_important_facts",
        (extra) => pages("relay_get_important_facts", { limit: 100, ...extra }, (s) => s.facts.map((x) => x.fact.id))
      ]
    ]
    for (const [tool, read] of cases) {
      const whole = await read({})
      expect(whole.sizes, tool).toHaveLength(1)
      const cut = await read({ max_tokens: 600 })
      expect(cut.sizes.length, tool).toBeGreaterThan(3)
      for (const size of cut.sizes) expect(size, `${tool}: ${cut.sizes.join(", ")}`).toBeLessThanOrEqual(600)
      expect(new Set(cut.seen).size, tool).toBe(cut.seen.length)
      expect(new Set(cut.seen), tool).toEqual(new Set(whole.seen))
    }
  })

  it("clusters and conflicts take it too; a page always moves on by at least one item", async () => {
    const clusters = await mcp.ok("relay_get_clusters", { max_tokens: 100 })
    expect(clusters.clusters).toHaveLength(1)
    expect(clusters.clusters[0]!.facts.length).toBeGreaterThanOrEqual(1)
    expect(clusters.clusters[0]!.facts.length).toBeLessThan(30)
    expect(await mcp.ok("relay_detect_conflicts", { max_tokens: 100 })).toEqual({ conflicts: [], next_cursor: null })
  })

  it("refuses a max_tokens that is not a whole number from 100 to 100,000, naming the field", async () => {
    for (const bad of [99, 100_001, 1.5, "500"]) {
      expect(await mcp.fails("relay_get_current_state", { max_tokens: bad }))
        .toEqual({ code: "invalid_input", message: "max_tokens: must be a whole number from 100 to 100000" })
    }
    expect(
      (await mcp.fails("relay_save_fact", { content: "x", written_by: "a", session_id: "s", max_tokens: 500 })).message
    )
      .toBe("max_tokens: is not a field of this tool")
  })
})
