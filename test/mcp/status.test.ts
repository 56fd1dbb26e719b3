import { describe, expect, it } from "@effect/vitest"
import { propertiesOf } from "../support/jsonSchema.js"
import type { RelayClient } from "../support/mcpClient.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"
import { type checkedCaller, freshRelayPerTest } from "./protocol.js"

/**
 * Fact status through the SDK's Client to Relay in process: the status and writer filters
 * of relay_get_current_state, relay_retract_fact, and as_of (time travel) on context, current state
 * and search. Every result is checked against its outputSchema by checkedCaller. Each test starts
 * its own server on a graph of its own and builds what it reads (`decided`, `retracted`).
 */
describe("fact status through the MCP client", () => {
  const relays = freshRelayPerTest()
  let relay: RelayClient | undefined
  let mcp: Awaited<ReturnType<typeof checkedCaller>>
  let ids: Record<string, string> = {}

  const save = async (key: string, content: string, by: string, parent?: string) => {
    const r = await mcp.ok("relay_save_fact", {
      content,
      written_by: by,
      session_id: "status-1",
      ...(parent === undefined ? {} : { parent_fact_id: ids[parent] })
    })
    ids[key] = r.fact.id
    return r
  }
  const state = async (args: Record<string, unknown>) =>
    (await mcp.ok("relay_get_current_state", args)).facts.map((f) => [f.id, f.status])

  /**
   * A fresh server and graph holding a fork under root, settled: cookies supersede redis, so ttl
   * (on redis) is stale. Answers the decision's time.
   */
  const decided = async () => {
    ;({ relay, mcp } = await relays.start())
    ids = {}
    await save("root", "Refresh tokens need a store", "claude-desktop")
    await save("redis", "Store them in Redis", "cursor", "root")
    await save("cookies", "Store them in httpOnly cookies", "claude-desktop", "root")
    await save("ttl", "Redis TTL equals the token lifetime", "cursor", "redis")
    return (await mcp.ok("relay_resolve_conflict", {
      winner_fact_id: ids.cookies,
      loser_fact_id: ids.redis,
      reason: "No extra service to run",
      resolved_by: "claude-desktop"
    })).created_at
  }
  /** Saves a, and b on it, after the decision; retracts a. Answers the retraction. */
  const retracted = async () => {
    await save("a", "Sessions expire after 30 minutes", "zed")
    await save("b", "Idle timer resets on each request", "zed", "a")
    return mcp.call("relay_retract_fact", { fact_id: ids.a, reason: "Wrong: it is 8 hours", retracted_by: "zed" })
  }

  it("tools/list advertises the status and written_by filters of relay_get_current_state", async () => {
    ;({ mcp } = await relays.start())
    const props = propertiesOf(mcp.tools.find((t) => t.name === "relay_get_current_state")!.inputSchema)
    expect(props.status?.default).toBe("active")
    // "any" and each status are an enum of the string form; a list is the array form.
    expect(JSON.stringify(props.status)).toContain(
      "\"enum\":[\"any\",\"active\",\"superseded\",\"stale\",\"retracted\"]"
    )
    expect(props.written_by?.type).toBe("string")
  })

  it("relay_get_current_state: active only by default; status and written_by filter", async () => {
    await decided()
    expect(await state({})).toEqual([[ids.cookies, "active"], [ids.root, "active"]])
    expect(await state({ status: ["superseded", "stale"] })).toEqual([[ids.ttl, "stale"], [ids.redis, "superseded"]])
    expect((await state({ status: "any" })).map(([id]) => id)).toEqual([ids.ttl, ids.cookies, ids.redis, ids.root])
    expect(await state({ status: "any", written_by: "cursor" })).toEqual([[ids.ttl, "stale"], [
      ids.redis,
      "superseded"
    ]])
    const page = await mcp.ok("relay_get_current_state", { limit: 1 })
    expect(page.facts.map((f) => f.id)).toEqual([ids.cookies])
    const next = await mcp.ok("relay_get_current_state", { limit: 1, cursor: page.next_cursor })
    expect(next.facts.map((f) => f.id)).toEqual([ids.root])
    expect(next.next_cursor).toBeNull()
    const bad = await mcp.call("relay_get_current_state", { status: "deleted" })
    expect(bad.isError).toBe(true)
    expect(errorOf(bad).code).toBe("invalid_input")
    expect(errorOf(bad).message).toMatch(/^status: /)
  })

  it("relay_retract_fact: the fact is retracted, its dependents stale, default reads leave it out; a repeat answers the first", async () => {
    await decided()
    const tool = mcp.tools.find((t) => t.name === "relay_retract_fact")!
    expect(tool.inputSchema.required).toEqual(["fact_id", "reason", "retracted_by"])
    expect(tool.description).toMatch(/operator/)
    const r = await retracted()
    expect(outputOf(r).fact.status).toBe("retracted")
    expect(outputOf(r).stale.map((d) => [d.fact.id, d.fact.status])).toEqual([[ids.b, "stale"]])
    expect(r.content[0]!.text).toContain(`Retracted by zed just now because "Wrong: it is 8 hours"`)
    expect(await state({})).toEqual([[ids.cookies, "active"], [ids.root, "active"]])
    expect(await state({ status: "retracted" })).toEqual([[ids.a, "retracted"]])
    expect((await mcp.ok("relay_search", { query: "sessions expire" })).hits).toEqual([])
    const again = await mcp.ok("relay_retract_fact", { fact_id: ids.a, reason: "other", retracted_by: "cursor" })
    expect([again.already_retracted, again.reason, again.retracted_by]).toEqual([true, "Wrong: it is 8 hours", "zed"])
    // Append-only: the fact is still there, unchanged, with one retraction.
    const stored = await relays.admin().query<{ content: string; n: number }>(
      relay!.graph,
      "MATCH (f:Fact {id: $id})<-[:RETRACTS]-(r:Retraction) RETURN f.content AS content, count(r) AS n",
      { id: ids.a }
    )
    expect(stored).toEqual([{ content: "Sessions expire after 30 minutes", n: 1 }])

    // A briefing tells others of the retraction and why, not its own author.
    const other = await mcp.call("relay_get_briefing", { my_name: "claude-desktop" })
    expect(outputOf(other).retractions.map((w) => [w.fact.id, w.fact.status, w.reason, w.retracted_by])).toEqual([
      [ids.a, "retracted", "Wrong: it is 8 hours", "zed"]
    ])
    expect(other.content[0]!.text).toContain("Retracted by others (1):")
    expect(other.content[0]!.text).toContain(
      `${ids.a!.slice(0, 8)} retracted because "Wrong: it is 8 hours" (zed, just now)`
    )
    expect(outputOf(await mcp.call("relay_get_briefing", { my_name: "zed" })).retractions).toEqual([])
  })

  it("as_of: context, current state and search answer as the memory stood then", async () => {
    const resolvedAt = await decided()
    const retractedAt = outputOf(await retracted()).created_at
    const before = new Date(Date.parse(resolvedAt) - 1).toISOString()
    // Just before the decision: nothing superseded or stale, and nothing saved later exists.
    expect(await state({ as_of: before, status: "any" })).toEqual([
      [ids.ttl, "active"],
      [ids.cookies, "active"],
      [ids.redis, "active"],
      [ids.root, "active"]
    ])
    expect(await state({ as_of: resolvedAt })).toEqual([[ids.cookies, "active"], [ids.root, "active"]])
    const chain = await mcp.ok("relay_get_context", { fact_id: ids.ttl, as_of: before })
    expect(chain.chain.map((f) => [f.id, f.status])).toEqual([[ids.root, "active"], [ids.redis, "active"], [
      ids.ttl,
      "active"
    ]])
    expect(chain.superseded_by).toEqual([])
    const nowCall = await mcp.call("relay_get_context", { fact_id: ids.ttl })
    const now = outputOf(nowCall)
    expect(now.chain.map((f) => f.status)).toEqual(["active", "superseded", "stale"])
    // Why the superseded fact lost is in the same reply, by id, as of now.
    expect(now.superseded_by.map((d) => [d.fact_id, d.winner_id, d.winner_content, d.reason, d.resolved_by])).toEqual([
      [ids.redis, ids.cookies, "Store them in httpOnly cookies", "No extra service to run", "claude-desktop"]
    ])
    expect(nowCall.content[0]!.text).toContain(
      `${ids.redis!.slice(0, 8)} lost to ${
        ids.cookies!.slice(0, 8)
      } "Store them in httpOnly cookies" because "No extra service to run" (claude-desktop, `
    )
    const hit = async (as_of?: string) =>
      (await mcp.ok("relay_search", { query: "Redis", status: "any", ...(as_of === undefined ? {} : { as_of }) })).hits
        .find((h) => h.fact.id === ids.redis)
    expect([(await hit(before))!.fact.status, (await hit(before))!.superseded_by]).toEqual(["active", []])
    expect((await hit())!.superseded_by.map((d) => d.winner_id)).toEqual([ids.cookies])
    // A fact saved after as_of is unknown then; a retraction after it is not yet there.
    const early = new Date(Date.parse(resolvedAt) + 0).toISOString()
    const missing = await mcp.call("relay_get_context", { fact_id: ids.a, as_of: early })
    expect(errorOf(missing).code).toBe("fact_not_found")
    const unretracted = new Date(Date.parse(retractedAt) - 1).toISOString()
    expect((await state({ as_of: unretracted })).slice(0, 2)).toEqual([[ids.b, "active"], [ids.a, "active"]])
    const found = await mcp.ok("relay_search", { query: "sessions expire", as_of: unretracted })
    expect(found.hits.map((h) => [h.fact.id, h.fact.status])).toEqual([[ids.a, "active"]])
    const bad = await mcp.call("relay_search", { query: "Redis", as_of: "yesterday" })
    expect(errorOf(bad).code).toBe("invalid_input")
    expect(errorOf(bad).message).toMatch(/^as_of: /)
    for (const name of ["relay_get_context", "relay_get_current_state", "relay_search"]) {
      expect(propertiesOf(mcp.tools.find((t) => t.name === name)!.inputSchema).as_of?.type).toBe("string")
    }
  })
})
