import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { checkedCaller } from "../mcp/protocol.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import { memory } from "./searchMemory.js"

/**
 * relay_search asked as an assistant asks: natural questions over a small, realistic memory (five
 * threads by three writers). Each question must find its fact first: question words and stopwords
 * are dropped, and when no fact holds every remaining word, facts holding some of them follow,
 * ranked by BM25 over the terms Relay keeps on write.
 */
const questions: ReadonlyArray<readonly [question: string, expected: string]> = [
  ["what did we decide about refresh tokens", "refresh"],
  ["migration tool", "migrations"],
  ["how long does a refresh token live?", "refreshTtl"],
  ["which queue do background jobs use", "queue"],
  ["what is the statement timeout", "timeout"],
  ["how are deploys rolled back when a health check fails", "rollback"],
  ["where are secrets stored", "secrets"],
  ["what do we use for feature flags?", "flags"],
  ["how many times do jobs retry", "retries"],
  ["are stripe webhooks verified", "webhooks"],
  ["what did we decide about the lockout after failed logins", "lockout"],
  ["who sends transactional emails", "emails"],
  ["what is the tracing sample rate in production", "tracing"],
  ["do we need a rollback script for a migration", "migrationReview"],
  ["when is the invoice export written", "export"],
  ["how is connection pooling done", "pool"]
]

describe("relay_search answers natural questions", () => {
  let relay: RelayClient
  let mcp: Awaited<ReturnType<typeof checkedCaller>>
  let admin: Admin
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    ;[relay, admin] = await Promise.all([connectRelay({ env: { RELAY_RATE_LIMIT: "1000" } }), connectAdmin()])
    mcp = await checkedCaller(relay)
    for (const [key, content, parent] of memory) {
      const r = await mcp.ok("relay_save_fact", {
        content,
        written_by: key.length % 3 === 0 ? "cursor" : key.length % 3 === 1 ? "zed" : "claude-desktop",
        session_id: "s1",
        ...(parent === undefined ? {} : { parent_fact_id: ids[parent] })
      })
      ids[key] = r.fact.id
    }
  }, 60_000)

  afterAll(async () => {
    await relay?.close()
    await admin?.close()
  })

  it("finds the right fact first for each question", async () => {
    const wrong: Array<string> = []
    for (const [question, expected] of questions) {
      const { hits } = await mcp.ok("relay_search", { query: question, limit: 5 })
      if (hits[0]?.fact.id !== ids[expected]) {
        wrong.push(`${question} -> ${hits.map((h) => h.fact.content.slice(0, 40)).join(" | ")}`)
      }
    }
    expect(wrong).toEqual([])
  })

  it("puts facts that hold every word before those that hold some, and pages through both once", async () => {
    const first = await mcp.ok("relay_search", { query: "refresh token rotate", limit: 1 })
    expect(first.hits.map((h) => h.fact.id)).toEqual([ids.refresh])
    const seen = [...first.hits.map((h) => h.fact.id)]
    let cursor = first.next_cursor
    for (let i = 0; cursor !== null && i < 20; i++) {
      const page = await mcp.ok("relay_search", { query: "refresh token rotate", limit: 1, cursor })
      seen.push(...page.hits.map((h) => h.fact.id))
      cursor = page.next_cursor
    }
    // Every fact with one of the words, once: refresh, refreshTtl (token, rotated), auth (tokens).
    expect(new Set(seen)).toEqual(new Set([ids.refresh, ids.refreshTtl, ids.auth]))
    expect(seen.length).toBe(3)
  })

  it("says nothing holds the words rather than asking for fewer", async () => {
    const r = await relay.call("relay_search", { query: "what about kubernetes helm charts zzz" })
    const text = (r.content as Array<{ text: string }>).map((c) => c.text).join("\n")
    expect(text).toContain("Deploys run on GitHub Actions")
    const none = await relay.call("relay_search", { query: "what about quokkas" })
    const noneText = (none.content as Array<{ text: string }>).map((c) => c.text).join("\n")
    expect(noneText).not.toContain("fewer words")
    expect(noneText).toContain("matches any item")
  })

  it("keeps term counts on write, once per fact even when a save is retried", async () => {
    const docs = async (term: string) =>
      (await admin.query<{ n: number | null }>(
        relay.graph,
        "OPTIONAL MATCH (t:Term {term: $t})-[d:DOCS]->(t) RETURN d.n AS n",
        { t: term }
      ))[0]?.n ?? 0
    // "token" is in auth (tokens), refresh (tokens) and refreshTtl (token): stems meet.
    expect(await docs("token")).toBe(3)
    const save = {
      content: "Zeppelin tokens are zeppelin-shaped",
      written_by: "zed",
      session_id: "s1",
      request_id: "z-1"
    }
    const a = await mcp.ok("relay_save_fact", save)
    const b = await mcp.ok("relay_save_fact", save)
    expect(b.fact.id).toBe(a.fact.id)
    expect(await docs("zeppelin")).toBe(1)
    expect(await docs("token")).toBe(4)
    const [row] = await admin.query<{ terms: Array<string>; docs: number }>(
      relay.graph,
      "MATCH (f:Fact {id: $id}), (:RelayClock)-[c:CLOCK]->() RETURN f.terms AS terms, c.docs AS docs",
      { id: a.fact.id }
    )
    expect(row?.terms).toEqual(["zeppelin", "token", "zeppelin", "shap"])
    expect(row?.docs).toBe(memory.length + 1)
  })
})
