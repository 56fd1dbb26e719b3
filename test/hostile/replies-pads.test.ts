import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import { outputOf } from "../support/toolOutputs.js"
import { type Built, duplicates, replyBytes, replyCap, writeFacts } from "./shapes.js"

/**
 * Valid text that the reply widens most: one word and 1,999 DEL characters (1 byte in
 * structuredContent, `\u007f` escaped once more in the text: 8 in all), tag characters (4 + 14) or C1
 * controls (2 + 7). The page budget was estimated from the JSON alone and let these replies pass
 * 1 MiB, so every list tool, the prompt and the resource answered `internal`, and writes answered
 * `internal` after they landed. Now each page is cut on what its reply really spends.
 */
const pads = { del: "\u007f", tag: "\u{E0041}", c1: "\u0085" } as const
const padded = (word: string, pad: string, n = 1999) => `${word}${pad.repeat(n)}`
const children = 90

describe("facts padded with DEL, tag and C1 characters", () => {
  let relay: RelayClient
  let admin: Admin
  const parents: Record<string, string> = {}
  const built: Array<Built> = []

  beforeAll(async () => {
    ;[relay, admin] = await Promise.all([
      connectRelay({ env: { RELAY_RATE_LIMIT: "100000" } }),
      connectAdmin()
    ])
    await relay.call("relay_get_current_state")
    let next = Date.now() - 60_000
    for (const [name, pad] of Object.entries(pads)) {
      const [parent] = await writeFacts(admin, relay.graph, {
        count: 1,
        first: next++,
        parent: null,
        content: () => `parent ${name}`,
        writer: () => "lead"
      })
      parents[name] = parent!.id
      built.push(parent!)
      const kids = await writeFacts(admin, relay.graph, {
        count: children,
        first: next,
        parent: parent!.id,
        content: (i) => padded(`word${name}${i}`, pad)
      })
      next += children
      built.push(...kids)
    }
  }, 120_000)
  afterAll(async () => {
    await relay?.close()
    if (relay !== undefined) await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await admin?.close()
  })

  it("every list tool answers its largest page under 1 MiB", async () => {
    const calls: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
      ["relay_get_current_state", { limit: 100 }],
      ["relay_detect_conflicts", { limit: 100 }],
      ["relay_get_important_facts", { limit: 100 }],
      ["relay_get_clusters", {}],
      ["relay_search", { query: "worddel*", limit: 50 }],
      ...Object.values(parents).map((p) => ["relay_get_impact", { fact_id: p, limit: 500 }] as const)
    ]
    for (const [tool, args] of calls) {
      const r = await relay.call(tool, args)
      expect(r.isError, `${tool}: ${r.content[0]?.text?.slice(0, 200)}`).toBeFalsy()
      expect(replyBytes(r), tool).toBeLessThan(replyCap)
    }
    // Cut by bytes, not by limit: 90 DEL-padded facts weigh ~1.4 MB of reply.
    const state = await relay.call("relay_get_current_state", { limit: 100 })
    expect(outputOf(state).facts.length).toBeLessThan(100)
    expect(outputOf(state).next_cursor).not.toBeNull()
  })

  it("a briefing pages every fact once under 1 MiB; the prompt and the resource answer too", async () => {
    const seen: Array<string> = []
    let cursor: string | undefined
    for (let pages = 0; pages < 100; pages++) {
      const r = await relay.call("relay_get_briefing", {
        my_name: "reader",
        ...(cursor === undefined ? {} : { cursor })
      })
      expect(r.isError, r.content[0]?.text?.slice(0, 200)).toBeFalsy()
      expect(replyBytes(r)).toBeLessThan(replyCap)
      seen.push(...outputOf(r).new_facts.map((f) => f.id))
      cursor = outputOf(r).next_cursor ?? undefined
      if (cursor === undefined) break
    }
    expect(duplicates(seen)).toEqual([])
    expect(seen.sort()).toEqual(built.map((b) => b.id).sort())

    const prompt = await relay.client.getPrompt({ name: "start-session", arguments: { name: "prompt-reader" } })
    expect(Buffer.byteLength(JSON.stringify(prompt))).toBeLessThan(replyCap)
    // The prompt's 1,500 tokens go to the open conflicts first (issue 41): new facts wait for the next page.
    expect(JSON.stringify(prompt)).toContain("Open conflicts with new facts")
    expect(JSON.stringify(prompt)).toContain("More in this window: relay_get_briefing")
    const resource = await relay.client.readResource({ uri: "relay://briefing/resource-reader" })
    expect(Buffer.byteLength(JSON.stringify(resource))).toBeLessThan(replyCap)
    expect(JSON.stringify(resource)).toContain("New facts by others")
  })

  it("a write whose reply would be too large answers its result, its stale list cut with a cursor", async () => {
    const retracted = await relay.call("relay_retract_fact", {
      fact_id: parents["del"],
      reason: "wrong question",
      retracted_by: "lead",
      limit: 500
    })
    expect(retracted.isError, retracted.content[0]?.text?.slice(0, 200)).toBeFalsy()
    expect(replyBytes(retracted)).toBeLessThan(replyCap)
    expect(outputOf(retracted).stale.length).toBeLessThan(children)
    expect(outputOf(retracted).stale_next_cursor).not.toBeNull()

    const winner = outputOf(
      await relay.call("relay_save_fact", { content: "the better question", written_by: "lead", session_id: "s" })
    ).fact.id
    const resolved = await relay.call("relay_resolve_conflict", {
      winner_fact_id: winner,
      loser_fact_id: parents["tag"],
      reason: "asked better",
      resolved_by: "lead",
      limit: 500
    })
    expect(resolved.isError, resolved.content[0]?.text?.slice(0, 200)).toBeFalsy()
    expect(replyBytes(resolved)).toBeLessThan(replyCap)
    expect(outputOf(resolved).stale_next_cursor).not.toBeNull()
  })

  it("get_context lists why each fact lost inside the budget: long reasons cut the page, never the reply", async () => {
    // A chain of 50 facts, each superseded by 3 winners with long tag-padded text and reasons.
    const base = Date.now() - 30_000
    const chain: Array<string> = []
    for (let i = 0; i < 50; i++) {
      const id = randomUUID()
      await admin.query(
        relay.graph,
        i === 0
          ? "CREATE (:Fact {id: $id, content: $c, norm: $c, written_by: 'w', session_id: 's', created_at: $at})"
          : "MATCH (p:Fact {id: $parent}) CREATE (:Fact {id: $id, content: $c, norm: $c, written_by: 'w', session_id: 's', created_at: $at})-[:BUILDS_ON]->(p)",
        { id, c: `step ${i}`, at: base + i, parent: chain[i - 1] ?? null }
      )
      chain.push(id)
    }
    await admin.query(
      relay.graph,
      "UNWIND range(0, 2) AS k CREATE (w:Fact {id: $prefix + toString(k), content: $wc, norm: $wc, written_by: 'w', " +
        "session_id: 's', created_at: $at + k}) WITH w, k UNWIND $chain AS lid MATCH (l:Fact {id: lid}) " +
        "CREATE (w)-[:SUPERSEDES {reason: $reason, resolved_by: 'lead', created_at: $at + 10 + k}]->(l)",
      {
        prefix: randomUUID().slice(0, 35),
        wc: padded("winner", pads.tag, 300),
        reason: padded("because", pads.tag, 490),
        at: base + 100,
        chain
      }
    )
    const seen: Array<string> = []
    let cursor: string | undefined
    for (let pages = 0; pages < 50; pages++) {
      const r = await relay.call("relay_get_context", {
        fact_id: chain[49],
        limit: 500,
        ...(cursor === undefined ? {} : { cursor })
      })
      expect(r.isError, r.content[0]?.text?.slice(0, 200)).toBeFalsy()
      expect(replyBytes(r)).toBeLessThan(replyCap)
      const page = outputOf(r)
      expect(page.superseded_by.length).toBe(3 * page.chain.length)
      seen.unshift(...page.chain.map((f) => f.id))
      cursor = page.next_cursor ?? undefined
      if (cursor === undefined) break
    }
    expect(seen).toEqual(chain)
  })
})
