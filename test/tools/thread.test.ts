import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import {
  createBuildsOnCypher,
  createFactsCypher,
  type StoredFact,
  storedFact,
  storeThreadClusters
} from "../../bench/bulkLoad.js"
import { clockSetQuery } from "../../src/layers/database/clock.js"
import { checkedCaller } from "../mcp/protocol.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"

/**
 * `thread` on the four reads, on a hostile shape: a thread of 3,001 facts (a root with a fan-out of
 * 2,000 children and a chain 1,000 deep under one of them) beside a small thread that says the same
 * words, and a thread past the bound (10,000 facts), which answers invalid_input on `thread`.
 */
describe("thread scope", () => {
  let relay: RelayClient
  let admin: Admin
  let mcp: Awaited<ReturnType<typeof checkedCaller>>
  const big: Array<StoredFact> = []
  const edges: Array<readonly [string, string]> = []
  let small: { root: string; a: string; b: string }
  let huge: string
  const t0 = Date.parse("2026-06-01T00:00:00.000Z")

  const load = async (facts: ReadonlyArray<StoredFact>, links: ReadonlyArray<readonly [string, string]>) => {
    for (let i = 0; i < facts.length; i += 5000) {
      await admin.query(relay.graph, createFactsCypher, { rows: facts.slice(i, i + 5000) })
    }
    for (let i = 0; i < links.length; i += 5000) {
      await admin.query(relay.graph, createBuildsOnCypher, { edges: links.slice(i, i + 5000) })
    }
  }

  beforeAll(async () => {
    ;[relay, admin] = await Promise.all([connectRelay({ env: { RELAY_RATE_LIMIT: "1000" } }), connectAdmin()])
    mcp = await checkedCaller(relay)
    let at = t0
    const fact = (content: string) => storedFact(randomUUID(), content, "cursor", "bulk", at++)
    const root = fact("Database thread: Postgres 16 is the primary database")
    big.push(root)
    for (let i = 0; i < 2000; i++) {
      const child = fact(`Database option ${i}: tune setting ${i}`)
      big.push(child)
      edges.push([child.id, root.id])
    }
    let parent = big[1]!
    for (let i = 0; i < 1000; i++) {
      const next = fact(i === 500 ? "The zebra index lives deep in the chain" : `Chain step ${i} of the migration`)
      big.push(next)
      edges.push([next.id, parent.id])
      parent = next
    }
    const hugeFacts: Array<StoredFact> = []
    const hugeEdges: Array<readonly [string, string]> = []
    const hugeRoot = fact("Huge thread root")
    hugeFacts.push(hugeRoot)
    for (let i = 0; i < 10_000; i++) {
      const child = fact(`Huge child ${i}`)
      hugeFacts.push(child)
      hugeEdges.push([child.id, hugeRoot.id])
    }
    huge = hugeFacts[5]!.id
    await load([...big, ...hugeFacts], [...edges, ...hugeEdges])
    // The root's children differ: it is forked, as a save would have marked it.
    await admin.query(
      relay.graph,
      "MATCH (p:Fact {id: $id}) CREATE (:ForkMark)-[:MARKS {opened: 0, closed: -1}]->(p)",
      { id: root.id }
    )
    await admin.query(relay.graph, clockSetQuery({ last: "$last" }), { last: at })
    // What the saves would have kept on write (threads and clusters, schema 8).
    await storeThreadClusters((cypher, params) => admin.query(relay.graph, cypher, params))
    // A small thread through the tools, saying the same words, with a fork of its own.
    const save = async (content: string, parent?: string) =>
      (await mcp.ok("relay_save_fact", {
        content,
        written_by: "zed",
        session_id: "small",
        ...(parent === undefined ? {} : { parent_fact_id: parent })
      })).fact.id
    const smallRoot = await save("Database thread two: zebra index on Postgres")
    small = {
      root: smallRoot,
      a: await save("Option A for the zebra", smallRoot),
      b: await save("Option B", smallRoot)
    }
  }, 120_000)

  afterAll(async () => {
    await relay?.close()
    await admin?.close()
  })

  it("current state of a thread: its newest facts, none of another thread, from any fact of it", async () => {
    const deepLeaf = big[big.length - 1]!.id
    for (const member of [big[0]!.id, deepLeaf, big[1700]!.id]) {
      const r = await mcp.ok("relay_get_current_state", { thread: member, limit: 3, status: "any" })
      expect(r.facts.map((f) => f.id)).toEqual(big.slice(-3).reverse().map((f) => f.id))
    }
    const s = await mcp.ok("relay_get_current_state", { thread: small.a, limit: 10 })
    expect(new Set(s.facts.map((f) => f.id))).toEqual(new Set([small.root, small.a, small.b]))
    // As of a time inside the big thread's making: the facts stamped by then.
    const asOf = new Date(t0 + 10).toISOString()
    const past = await mcp.ok("relay_get_current_state", { thread: big[0]!.id, as_of: asOf, limit: 100, status: "any" })
    expect(past.facts.map((f) => f.id)).toEqual(big.slice(0, 11).reverse().map((f) => f.id))
  })

  it("search within a thread finds the fact deep in its chain and nothing of the other thread", async () => {
    const r = await mcp.ok("relay_search", { query: "where is the zebra index", thread: big[1]!.id })
    expect(r.hits.map((h) => h.fact.id)).toEqual([big[2001 + 500]!.id])
    const other = await mcp.ok("relay_search", { query: "zebra index", thread: small.b })
    expect(other.hits[0]?.fact.id).toBe(small.root)
    expect(other.hits.map((h) => h.fact.id)).not.toContain(big[2001 + 500]!.id)
  })

  it("conflicts of a thread: its forked parents only", async () => {
    const r = await mcp.ok("relay_detect_conflicts", { thread: big[2500]!.id })
    expect(r.conflicts.map((c) => c.parent.id)).toEqual([big[0]!.id])
    expect(r.conflicts[0]!.children_total).toBe(2000)
    const s = await mcp.ok("relay_detect_conflicts", { thread: small.root })
    expect(s.conflicts.map((c) => c.parent.id)).toEqual([small.root])
  })

  it("a briefing of a thread lists only that thread's new facts and conflicts", async () => {
    const r = await mcp.ok("relay_get_briefing", {
      my_name: "someone",
      since: "2026-01-01T00:00:00.000Z",
      thread: small.a,
      limit: 10
    })
    expect(new Set(r.new_facts.map((f) => f.id))).toEqual(new Set([small.root, small.a, small.b]))
    expect(r.open_conflicts.map((c) => c.parent.id)).toEqual([small.root])
    // A decision and a retraction in the big thread: its briefing has them, the small one's not.
    await mcp.ok("relay_resolve_conflict", {
      winner_fact_id: big[1]!.id,
      loser_fact_id: big[2]!.id,
      reason: "tuned",
      resolved_by: "zed"
    })
    await mcp.ok("relay_retract_fact", { fact_id: big[3]!.id, reason: "wrong", retracted_by: "zed" })
    const since = "2026-01-01T00:00:00.000Z"
    const b = await mcp.ok("relay_get_briefing", { my_name: "someone", since, thread: big[2500]!.id, limit: 5 })
    expect(b.decisions.map((d) => d.loser.id)).toEqual([big[2]!.id])
    expect(b.retractions.map((x) => x.fact.id)).toEqual([big[3]!.id])
    const s2 = await mcp.ok("relay_get_briefing", { my_name: "someone", since, thread: small.b, limit: 5 })
    expect([s2.decisions.length, s2.retractions.length]).toEqual([0, 0])
  })

  it("clusters carry a label, last activity, open-conflict count and a fact to pass as thread", async () => {
    const r = await mcp.ok("relay_get_clusters", { limit: 3, facts_per_cluster: 2 })
    const [hugeCluster, bigCluster, smallCluster] = r.clusters
    expect(bigCluster).toMatchObject({
      size: 3001,
      label: "Database thread: Postgres 16 is the primary database",
      thread: big[0]!.id,
      last_activity: new Date(big[big.length - 1]!.created_at).toISOString(),
      open_conflicts: 1
    })
    expect(hugeCluster).toMatchObject({ size: 10_001, label: "Huge thread root", open_conflicts: 0 })
    expect(smallCluster).toMatchObject({ size: 3, thread: small.root, open_conflicts: 1 })
    // The thread it names reads that cluster.
    const state = await mcp.ok("relay_get_current_state", { thread: smallCluster!.thread })
    expect(new Set(state.facts.map((f) => f.id))).toEqual(new Set([small.root, small.a, small.b]))
  })

  it("a thread past the bound answers invalid_input naming thread, on every read", async () => {
    for (
      const [tool, args] of [
        ["relay_get_current_state", {}],
        ["relay_search", { query: "huge" }],
        ["relay_detect_conflicts", {}],
        ["relay_get_briefing", { my_name: "someone" }]
      ] as const
    ) {
      const e = await mcp.fails(tool, { ...args, thread: huge })
      expect(e.code).toBe("invalid_input")
      expect(e.message).toMatch(/^thread: more than 10000 facts/)
    }
    const missing = await mcp.fails("relay_get_current_state", { thread: randomUUID() })
    expect(missing.code).toBe("fact_not_found")
  })
})
