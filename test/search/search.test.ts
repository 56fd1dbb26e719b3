import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { createFactsCypher, storedFact } from "../../bench/bulkLoad.js"
import { checkedCaller } from "../mcp/protocol.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import type { OutputOf } from "../support/toolOutputs.js"
import { outputOf } from "../support/toolOutputs.js"

/**
 * relay_search through the SDK's Client to Relay in process, on one graph: a small memory
 * with a settled fork (a superseded fact and a stale one under it), several writers and sessions.
 * Every result is checked against the declared outputSchema by checkedCaller.
 */
describe("relay_search through the MCP client", () => {
  let relay: RelayClient
  let admin: Admin
  let mcp: Awaited<ReturnType<typeof checkedCaller>>
  const ids: Record<string, string> = {}
  const created: Record<string, string> = {}

  const save = async (key: string, content: string, by: string, session: string, parent?: string) => {
    const r = await mcp.ok("relay_save_fact", {
      content,
      written_by: by,
      session_id: session,
      ...(parent === undefined ? {} : { parent_fact_id: ids[parent] })
    })
    ids[key] = r.fact.id
    created[key] = r.fact.created_at
  }
  const hits = async (args: Record<string, unknown>) => (await mcp.ok("relay_search", args)).hits
  const found = async (args: Record<string, unknown>) => (await hits(args)).map((h) => h.fact.id)
  /** Every hit's id, page after page until next_cursor is null (at most 100 pages). */
  const pageIds = async (args: Record<string, unknown>) => {
    const seen: Array<string> = []
    let cursor: string | null = null
    for (let pages = 0; pages < 100; pages++) {
      const page: OutputOf<"relay_search"> = await mcp.ok("relay_search", {
        ...args,
        ...(cursor === null ? {} : { cursor })
      })
      seen.push(...page.hits.map((h) => h.fact.id))
      cursor = page.next_cursor
      if (cursor === null) break
    }
    return seen
  }

  beforeAll(async () => {
    // More calls than the default minute's limit: this file tests search, not the limiter.
    ;[relay, admin] = await Promise.all([connectRelay({ env: { RELAY_RATE_LIMIT: "1000" } }), connectAdmin()])
    mcp = await checkedCaller(relay)
    await save("root", "Decision: sessions use short-lived JWTs with refresh tokens", "claude-desktop", "auth-1")
    await save("cookies", "Keep the refresh token in httpOnly cookies", "claude-desktop", "auth-1", "root")
    await save("redis", "Keep refresh tokens in Redis", "cursor", "auth-2", "root")
    await save("ttl", "Redis key TTL equals the refresh token lifetime", "cursor", "auth-2", "redis")
    await save("pg", "PostgreSQL is the primary database for billing", "zed", "db-1")
    await save("pool", "Use pgbouncer for connection pooling", "zed", "db-1")
    await save("kafka", "Not using Kafka: NATS is enough for the job queue", "codex", "queue-1")
    await save(
      "cache3",
      "Cache eviction: the cache is warmed after deploy and the cache expires hourly",
      "codex",
      "cache-1"
    )
    await save("cache1", "Settings page: settings are saved, settings sync goes through a cache", "codex", "cache-1")
    await mcp.ok("relay_resolve_conflict", {
      winner_fact_id: ids.cookies,
      loser_fact_id: ids.redis,
      reason: "No extra service to run",
      resolved_by: "claude-desktop"
    })
  })
  afterAll(async () => {
    await relay?.close()
    if (relay !== undefined) await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await admin?.close()
  })

  it("made the full-text index at start, once", async () => {
    const rows = await admin.query<{ types: Record<string, Array<string>> }>(
      relay.graph,
      "CALL db.indexes() YIELD label, types WHERE label = 'Fact' RETURN types"
    )
    expect(rows[0]?.types.content).toEqual(["FULLTEXT"])
    // A second process on the same graph finds it and starts fine.
    const second = await connectRelay({ graph: relay.graph })
    try {
      const r = await second.call("relay_search", { query: "pgbouncer" })
      expect(outputOf(r).hits.map((h) => h.fact.id)).toEqual([ids.pool])
    } finally {
      await second.close()
    }
  })

  it("stems: tokens finds token, and token finds tokens", async () => {
    expect(await found({ query: "tokens" })).toContain(ids.cookies)
    expect(await found({ query: "token" })).toContain(ids.root)
  })

  it("matches prefixes, typos and phrases", async () => {
    expect(await found({ query: "pgboun*" })).toEqual([ids.pool])
    expect(await found({ query: "Postgre*" })).toEqual([ids.pg])
    expect(await found({ query: "%kafke%" })).toEqual([ids.kafka])
    expect(await found({ query: "kafke" })).toEqual([])
    expect(await found({ query: "\"httpOnly cookies\"" })).toEqual([ids.cookies])
    expect(await found({ query: "\"cookies httpOnly\"" })).toEqual([])
    // No fact holds both words: facts that hold either fill the page; a|b takes either.
    expect(new Set(await found({ query: "pgbouncer billing" }))).toEqual(new Set([ids.pool, ids.pg]))
    expect(new Set(await found({ query: "pgbouncer|billing" }))).toEqual(new Set([ids.pool, ids.pg]))
    // "not" is a word like any other (no stopwords): a decision against something stays findable.
    expect(await found({ query: "not kafka" })).toEqual([ids.kafka])
  })

  it("ranks the more relevant fact first, even when it is older", async () => {
    // The engine's TF-IDF: in the older fact cache is the main word, in the newer one a passing mention.
    const r = await hits({ query: "cache" })
    expect(r.map((h) => h.fact.id)).toEqual([ids.cache3, ids.cache1])
    expect(r[0]!.score).toBeGreaterThan(r[1]!.score)
  })

  it("shows only active facts by default; superseded and stale on request", async () => {
    expect(new Set(await found({ query: "refresh" }))).toEqual(new Set([ids.root, ids.cookies]))
    expect(await found({ query: "refresh", status: "superseded" })).toEqual([ids.redis])
    expect(await found({ query: "refresh", status: ["stale"] })).toEqual([ids.ttl])
    expect(new Set(await found({ query: "refresh", status: ["superseded", "stale"] }))).toEqual(
      new Set([ids.redis, ids.ttl])
    )
    const any = await hits({ query: "refresh", status: "any" })
    expect(new Map(any.map((h) => [h.fact.id, h.fact.status]))).toEqual(
      new Map([
        [ids.root, "active"],
        [ids.cookies, "active"],
        [ids.redis, "superseded"],
        [ids.ttl, "stale"]
      ])
    )
  })

  it("answers what was decided in one call: the loser carries the winner and reason, the winner the loser", async () => {
    const [lost] = await hits({ query: "redis refresh", status: "superseded" })
    expect(lost!.fact).toMatchObject({ id: ids.redis, status: "superseded", parent_id: ids.root })
    expect(lost!.superseded_by).toEqual([{
      winner_id: ids.cookies,
      winner_content: "Keep the refresh token in httpOnly cookies",
      reason: "No extra service to run",
      resolved_by: "claude-desktop",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/)
    }])
    expect(lost!.supersedes).toEqual([])
    const [won] = await hits({ query: "httpOnly" })
    expect(won!.fact.id).toBe(ids.cookies)
    expect(won!.superseded_by).toEqual([])
    expect(won!.supersedes).toMatchObject([{
      loser_id: ids.redis,
      loser_content: "Keep refresh tokens in Redis",
      reason: "No extra service to run"
    }])
    // The two facts that hold both words (any-word matches would follow on a longer page).
    const text = mcp.text(await mcp.call("relay_search", { query: "redis refresh", status: "any", limit: 2 }))
    expect(text).toContain(
      `lost to ${
        ids.cookies?.slice(0, 8)
      } "Keep the refresh token in httpOnly cookies" because "No extra service to run"`
    )
    // Both sides a hit: each fact's text once (its own line), the decision in full once.
    const both = mcp.text(await mcp.call("relay_search", { query: "refresh", status: "any" }))
    expect(both.split("Keep refresh tokens in Redis").length - 1).toBe(1)
    expect(both.split("Keep the refresh token in httpOnly cookies").length - 1).toBe(1)
    expect(both.split("No extra service to run").length - 1).toBe(1)
    expect(both).toMatch(
      new RegExp(
        `(lost to ${ids.cookies?.slice(0, 8)}|won over ${ids.redis?.slice(0, 8)}) \\(the decision above\\)`
      )
    )
  })

  it("shows a fact's 3 oldest decisions each way, whatever order the facts were made in", async () => {
    // Node order (the facts' creation) and decision order differ: neither the traversal's order
    // nor its reverse gives the oldest decisions.
    const resolve = (winner: string, loser: string) =>
      mcp.ok("relay_resolve_conflict", {
        winner_fact_id: ids[winner],
        loser_fact_id: ids[loser],
        reason: `${winner} over ${loser}`,
        resolved_by: "quad"
      })
    await save("qp", "quadparent of the many decisions", "quad", "quad")
    await save("ql", "quadloser facing four winners", "quad", "quad", "qp")
    for (const i of [1, 2, 3, 4]) await save(`qw${i}`, `quadwinner number ${i}`, "quad", "quad", "qp")
    for (const w of ["qw2", "qw4", "qw1", "qw3"]) await resolve(w, "ql")
    const [lost] = await hits({ query: "quadloser", status: "superseded" })
    expect(lost!.superseded_by.map((d) => d.winner_id)).toEqual([ids.qw2, ids.qw4, ids.qw1])
    const context = await mcp.ok("relay_get_context", { fact_id: ids.ql })
    expect(context.superseded_by.map((d) => d.winner_id)).toEqual([ids.qw2, ids.qw4, ids.qw1])

    await save("qb", "quadboss over four losers", "quad", "quad", "qp")
    for (const i of [1, 2, 3, 4]) await save(`qx${i}`, `quadlost number ${i}`, "quad", "quad", "qp")
    for (const l of ["qx3", "qx1", "qx4", "qx2"]) await resolve("qb", l)
    const [won] = await hits({ query: "quadboss" })
    expect(won!.supersedes.map((d) => d.loser_id)).toEqual([ids.qx3, ids.qx1, ids.qx4])
  })

  it("says why a search found nothing, and asks for nothing that would not help", async () => {
    const text = mcp.text(await mcp.call("relay_search", { query: "what did we decide about quokkas" }))
    expect(text).toContain("Matches, best first: none (no fact of the statuses asked matches any item)")
  })

  it("filters by writer, session and time", async () => {
    const all = { query: "refresh|pgbouncer|kafka|cache", status: "any", limit: 50 }
    expect(new Set(await found({ ...all, written_by: "cursor" }))).toEqual(new Set([ids.redis, ids.ttl]))
    expect(await found({ ...all, written_by: "nobody" })).toEqual([])
    expect(new Set(await found({ ...all, session_id: "cache-1" }))).toEqual(new Set([ids.cache3, ids.cache1]))
    // since is exclusive and until inclusive, as the briefing's window.
    expect(new Set(await found({ ...all, since: created.kafka }))).toEqual(new Set([ids.cache3, ids.cache1]))
    expect(new Set(await found({ ...all, until: created.redis }))).toEqual(new Set([ids.root, ids.cookies, ids.redis]))
    expect(await found({ ...all, since: created.pool, until: created.kafka })).toEqual([ids.kafka])
  })

  it("pages to the end with each hit exactly once, best first", async () => {
    for (let i = 0; i < 23; i++) {
      await save(`p${i}`, `pagination marker ${"pagination ".repeat(i % 4)}item ${i}`, "pager", "paging")
    }
    const seen: Array<{ id: string; score: number }> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const r: OutputOf<"relay_search"> = await mcp.ok("relay_search", {
        query: "pagination",
        limit: 5,
        ...(cursor === null ? {} : { cursor })
      })
      expect(r.hits.length).toBeLessThanOrEqual(5)
      seen.push(...r.hits.map((h) => ({ id: h.fact.id, score: h.score })))
      cursor = r.next_cursor
      pages++
    } while (cursor !== null && pages < 20)
    expect(pages).toBe(5)
    expect(seen.map((s) => s.id).sort()).toEqual(Array.from({ length: 23 }, (_, i) => ids[`p${i}`]).sort())
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.score).toBeLessThanOrEqual(seen[i - 1]!.score)
    // Ties show newest first.
    const ties = seen.filter((s) => s.score === seen[seen.length - 1]!.score).map((s) => s.id)
    const order = ties.map((id) => Object.keys(ids).find((k) => ids[k] === id)!).map((k) => created[k]!)
    expect(order).toEqual([...order].sort().reverse())
  })

  it("pages through scores that 15 printed digits do not hold exactly, each hit once", async () => {
    // A fact's score is over its highest term count: thirdpage once beside zork 3, 6 or 7 times
    // scores a third, sixth or seventh of thirdpage alone. Pages of 2 end inside groups of 3 ties.
    const groups = [0, 3, 6, 7]
    for (const m of groups) {
      for (let n = 0; n < 3; n++) await save(`third${m}.${n}`, `thirdpage ${"zork ".repeat(m)}${n}`, "pager", "thirds")
    }
    const raw = await admin.query<{ score: number }>(
      relay.graph,
      "CALL db.idx.fulltext.queryNodes('Fact', 'thirdpage') YIELD score RETURN DISTINCT score ORDER BY score DESC"
    )
    expect(raw.map((r) => r.score * 3 % 1 === 0 ? "whole thirds" : "other")).toContain("other")
    const seen = await pageIds({ query: "thirdpage", limit: 2 })
    // Best score first (zork least often), and newest first within a score.
    expect(seen).toEqual(groups.flatMap((m) => [2, 1, 0].map((n) => ids[`third${m}.${n}`])))
  })

  it("fills a page even when the best-ranked matches are hidden by the status filter", async () => {
    for (let i = 0; i < 3; i++) await save(`live${i}`, `shortpage live ${i}`, "pager", "shortpage")
    await save("sp", "A parent with many settled children", "pager", "shortpage")
    await save("spw", "The child that won", "pager", "shortpage", "sp")
    for (let i = 0; i < 5; i++) {
      // Newer than the live ones, with the same score: they rank first.
      await save(`gone${i}`, `shortpage gone ${i}`, "pager", "shortpage", "sp")
      await mcp.ok("relay_resolve_conflict", {
        winner_fact_id: ids.spw,
        loser_fact_id: ids[`gone${i}`],
        reason: "settled",
        resolved_by: "pager"
      })
    }
    const first = await mcp.ok("relay_search", { query: "shortpage", limit: 2 })
    expect(first.hits.map((h) => h.fact.id)).toEqual([ids.live2, ids.live1])
    expect(first.next_cursor).not.toBeNull()
    const second = await mcp.ok("relay_search", { query: "shortpage", limit: 2, cursor: first.next_cursor })
    expect(second.hits.map((h) => h.fact.id)).toEqual([ids.live0])
    expect(second.next_cursor).toBeNull()
    expect(await found({ query: "shortpage", status: "superseded", limit: 50 })).toHaveLength(5)
  })

  it("filters on a fact's own fields hold past the best 1,000 matches; paging and status stay within them", async () => {
    // 5 facts by bravo, then 1,000 by alpha, all with the same words: equal scores, so alpha's newer
    // ones are the best 1,000 and bravo's rank 1,001 to 1,005.
    const at = Date.parse(created.root!)
    const rows = [
      ...Array.from({ length: 5 }, (_, n) => ({ id: randomUUID(), by: "bravo", at: at + n })),
      ...Array.from({ length: 1000 }, (_, n) => ({ id: randomUUID(), by: "alpha", at: at + 5 + n }))
    ]
    await admin.query(relay.graph, createFactsCypher, {
      rows: rows.map((r) => storedFact(r.id, "zeppelin hangar", r.by, "zeppelin", r.at))
    })
    const bravo = rows.filter((r) => r.by === "bravo").map((r) => r.id).reverse()
    const ids = (page: { hits: ReadonlyArray<{ fact: { id: string } }> }) => page.hits.map((h) => h.fact.id)
    // Before, these filters applied within the best 1,000 and found nothing.
    expect(ids(await mcp.ok("relay_search", { query: "zeppelin", written_by: "bravo", limit: 10 }))).toEqual(bravo)
    const before = new Date(at + 4).toISOString()
    const older = await mcp.ok("relay_search", { query: "zeppelin", until: before, limit: 5 })
    expect(ids(older)).toEqual(bravo)
    expect(older.next_cursor).toBeNull()
    expect(ids(await mcp.ok("relay_search", { query: "zeppelin", as_of: before, limit: 5 }))).toEqual(bravo)
    // Unfiltered, paging walks the best 1,000 (alpha's, newest first), each once, and stops there.
    const seen = await pageIds({ query: "zeppelin", limit: 50 })
    expect(seen).toEqual(rows.slice(5).map((r) => r.id).reverse())
    // The 30 newest are superseded: a page of active facts is not in the first try's window (4 pages).
    const winner = randomUUID()
    await admin.query(
      relay.graph,
      "CREATE (w:Fact {id: $winner, content: 'airship dock', norm: 'airship dock', written_by: 'alpha', " +
        "session_id: 'zeppelin', created_at: $at}) WITH w UNWIND $losers AS l MATCH (f:Fact {id: l}) " +
        "CREATE (w)-[:SUPERSEDES {reason: 'moved', resolved_by: 'alpha', created_at: $at}]->(f)",
      { winner, at: at + 2000, losers: rows.slice(-30).map((r) => r.id) }
    )
    const active = await mcp.ok("relay_search", { query: "zeppelin", limit: 2 })
    expect(ids(active)).toEqual(rows.slice(-32, -30).map((r) => r.id).reverse())
  })

  it("refuses a cursor it did not make", async () => {
    for (
      const cursor of [
        "nonsense",
        Buffer.from("[1]").toString("base64url"),
        Buffer.from("[\"a\",1]").toString("base64url"),
        // Scores are small: the largest double overflowed the query's bounds and answered internal.
        Buffer.from("[1.7976931348623157e308,5]").toString("base64url"),
        Buffer.from("[1e-310,5]").toString("base64url"),
        Buffer.from("[-1,5]").toString("base64url")
      ]
    ) {
      const e = await mcp.fails("relay_search", { query: "refresh", cursor })
      expect(e).toEqual({ code: "invalid_input", message: "cursor: must be a next_cursor returned by this tool" })
    }
  })

  it("writes nothing", async () => {
    const shape = () =>
      admin.query<{ n: number; e: number; p: number }>(
        relay.graph,
        "MATCH (n) OPTIONAL MATCH (n)-[r]->() WITH n, count(r) AS rs RETURN count(n) AS n, sum(rs) AS e, " +
          "sum(size(keys(n))) AS p"
      )
    const clock = () =>
      admin.query<{ last: number }>(relay.graph, "MATCH (:RelayClock)-[c:CLOCK]->() RETURN c.last AS last")
    const before = [await shape(), await clock()]
    await mcp.ok("relay_search", { query: "refresh", status: "any" })
    await mcp.ok("relay_search", { query: "%kafke% | pgboun*", written_by: "zed" })
    await mcp.fails("relay_search", { query: "%" })
    expect([await shape(), await clock()]).toEqual(before)
  })
})
