import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { freePort } from "../support/falkordbServer.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin, connectRelayTo, isAlive, relayPid, runDatabase } from "../support/proof.js"
import { errorOf } from "../support/toolOutputs.js"
import { checkedCaller } from "./protocol.js"

type Caller = Awaited<ReturnType<typeof checkedCaller>>

const someId = () => randomUUID()

/** One valid call per tool, on ids that do not exist. */
const everyTool: Array<[string, Record<string, unknown>]> = [
  ["relay_save_fact", { content: "a fact", written_by: "tester", session_id: "s" }],
  ["relay_get_context", { fact_id: someId() }],
  ["relay_get_impact", { fact_id: someId() }],
  ["relay_get_current_state", {}],
  ["relay_detect_conflicts", {}],
  ["relay_resolve_conflict", { winner_fact_id: someId(), loser_fact_id: someId(), reason: "r", resolved_by: "tester" }],
  ["relay_get_briefing", { my_name: "tester" }],
  ["relay_get_important_facts", {}],
  ["relay_get_clusters", {}],
  ["relay_search", { query: "anything" }]
]

/**
 * Every error code of the contract, reached through the protocol: a real dist/server.js per
 * situation (a healthy one, one with a tiny rate limit, one pointed at a closed port, one on a
 * graph corrupted behind Relay's back), each answer checked for its code, its `<code>: <message>`
 * text and its structuredContent against the declared outputSchema (protocol.ts).
 */
describe("error codes over stdio", () => {
  let admin: Admin
  const relays: Record<"main" | "limited" | "closed" | "corrupt", RelayClient> = {} as never
  const mcp: Record<keyof typeof relays, Caller> = {} as never
  let closedPort: number

  beforeAll(async () => {
    closedPort = await freePort()
    const [main, limited, closed, corrupt, a] = await Promise.all([
      connectRelay(),
      connectRelay({ env: { RELAY_RATE_LIMIT: "3" } }),
      // These two are processes: the tests ask that the process itself keeps serving.
      connectRelayTo({ ...runDatabase(), port: closedPort }, { process: true }),
      connectRelay({ process: true }),
      connectAdmin()
    ])
    Object.assign(relays, { main, limited, closed, corrupt })
    admin = a
    for (const k of Object.keys(relays) as Array<keyof typeof relays>) mcp[k] = await checkedCaller(relays[k])
  })
  afterAll(async () => {
    await Promise.all(Object.values(relays).map((r) => r.close()))
    for (const r of [relays.main, relays.limited, relays.corrupt]) {
      if (r !== undefined) await admin?.command(["GRAPH.DELETE", r.graph]).catch(() => undefined)
    }
    await admin?.close()
  })

  const factCount = async (relay: RelayClient) =>
    (await admin.query<{ n: number }>(relay.graph, "MATCH (f:Fact) RETURN count(f) AS n").catch(() => [{ n: 0 }]))[0]
      ?.n ?? 0

  it("invalid_input: every tool names the offending field, and nothing is written", async () => {
    const { fails, ok } = mcp.main
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["relay_save_fact", { content: "   ", written_by: "a", session_id: "s" }, /^content: /],
      ["relay_save_fact", { content: "x".repeat(2001), written_by: "a", session_id: "s" }, /^content: /],
      ["relay_save_fact", { content: "ok", written_by: "-bad name", session_id: "s" }, /^written_by: /],
      ["relay_save_fact", { content: "ok", written_by: "a" }, /^session_id: is required/],
      [
        "relay_save_fact",
        { content: "ok", written_by: "a", session_id: "s", parent_fact_id: "12" },
        /^parent_fact_id: /
      ],
      ["relay_save_fact", { content: "ok", written_by: "a", session_id: "s", id: someId() }, /^id: is not a field/],
      ["relay_get_context", { fact_id: "nope" }, /^fact_id: /],
      ["relay_get_impact", {}, /^fact_id: is required/],
      ["relay_get_current_state", { limit: 101 }, /^limit: /],
      // Floors the listing leaves unsaid (a page of 0, a budget under 100, one id) are still refused.
      ["relay_get_current_state", { limit: 0 }, /^limit: /],
      ["relay_search", { query: "x", max_tokens: 99 }, /^max_tokens: /],
      [
        "relay_resolve_conflict",
        { outcome: "compatible", fact_ids: [someId()], reason: "r", resolved_by: "a" },
        /^fact_ids: /
      ],
      ["relay_detect_conflicts", { x: 1 }, /^x: is not a field/],
      [
        "relay_resolve_conflict",
        { winner_fact_id: someId(), loser_fact_id: someId(), reason: "", resolved_by: "a" },
        /^reason: /
      ],
      ["relay_get_briefing", { my_name: "me", since: "yesterday" }, /^since: /],
      // a time without its zone is the usual slip: the message says what is missing
      ["relay_search", { query: "x", since: "2026-01-01T00:00:00" }, /^since: .*with a zone/],
      ["relay_get_important_facts", { limit: "5" }, /^limit: /],
      ["relay_get_clusters", { all: true }, /^all: is not a field/]
    ]
    for (const [tool, args, message] of cases) {
      const error = await fails(tool, args)
      expect(error.code, `${tool} ${JSON.stringify(args).slice(0, 80)}`).toBe("invalid_input")
      expect(error.message).toMatch(message)
      expect(error.message).not.toContain("x".repeat(50))
    }
    // A tool that does not exist is a protocol error (MCP: -32602), still with the contract's code.
    await expect(relays.main.call("relay_forget_everything", {})).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/invalid_input: name: there is no tool called "relay_forget_everything"/)
    })
    expect((await ok("relay_get_current_state")).facts).toEqual([])
    expect(await factCount(relays.main)).toBe(0)
  })

  it("fact_not_found: names the id field that points nowhere", async () => {
    const { fails, ok } = mcp.main
    const missing = someId()
    const real = (await ok("relay_save_fact", { content: "a real fact", written_by: "a", session_id: "s" })).fact.id
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["relay_get_context", { fact_id: missing }, "fact_id"],
      ["relay_get_impact", { fact_id: missing }, "fact_id"],
      [
        "relay_save_fact",
        { content: "orphan", written_by: "a", session_id: "s", parent_fact_id: missing },
        "parent_fact_id"
      ],
      [
        "relay_resolve_conflict",
        { winner_fact_id: missing, loser_fact_id: real, reason: "r", resolved_by: "a" },
        "winner_fact_id"
      ],
      [
        "relay_resolve_conflict",
        { winner_fact_id: real, loser_fact_id: missing, reason: "r", resolved_by: "a" },
        "loser_fact_id"
      ]
    ]
    for (const [tool, args, field] of cases) {
      const error = await fails(tool, args)
      expect(error.code, tool).toBe("fact_not_found")
      expect(error.message).toBe(`${field}: no fact with id ${missing}`)
    }
    expect(await factCount(relays.main)).toBe(1)
  })

  it("secret_detected: names the field and the kind, never the secret, and writes nothing", async () => {
    const { fails, ok } = mcp.main
    const before = await factCount(relays.main)
    const key = "AKIAIXPRXOUYC3DMUK5K"
    const e1 = await fails("relay_save_fact", {
      content: `CI uploads with ${key} in eu-west-1`,
      written_by: "a",
      session_id: "s"
    })
    expect(e1.code).toBe("secret_detected")
    expect(e1.message).toMatch(/^content /)
    expect(e1.message).toContain("AWS access key id")
    expect(e1.message).not.toContain(key)
    const a = (await ok("relay_save_fact", { content: "left", written_by: "a", session_id: "s" })).fact.id
    const b = (await ok("relay_save_fact", { content: "right", written_by: "a", session_id: "s" })).fact.id
    const token = "ghp_hIFCrMQKrie5yGH6qlqrSGlCkaP1mTWMY8EJ"
    const e2 = await fails("relay_resolve_conflict", {
      winner_fact_id: a,
      loser_fact_id: b,
      reason: `deploy with ${token}`,
      resolved_by: "a"
    })
    expect(e2.code).toBe("secret_detected")
    expect(e2.message).toMatch(/^reason /)
    expect(e2.message).not.toContain(token)
    expect(await factCount(relays.main)).toBe(before + 2)
    const edges = await admin.query<{ n: number }>(
      relays.main.graph,
      "MATCH ()-[r:SUPERSEDES]->() RETURN count(r) AS n"
    )
    expect(edges[0]?.n).toBe(0)
  })

  it("invalid_resolution: the same fact, an ancestor, and a cycle are refused with no edge left", async () => {
    const { fails, ok } = mcp.main
    const save = async (content: string, parent?: string) =>
      (await ok("relay_save_fact", {
        content,
        written_by: "a",
        session_id: "r",
        ...(parent === undefined ? {} : { parent_fact_id: parent })
      })).fact.id as string
    const root = await save("which queue")
    const x = await save("use SQS", root)
    const y = await save("use Kafka", root)
    const resolve = (winner: string, loser: string) => ({
      winner_fact_id: winner,
      loser_fact_id: loser,
      reason: "because",
      resolved_by: "a"
    })
    for (
      const [winner, loser, message] of [[x, x, /different facts/], [x, root, /builds on/], [
        root,
        y,
        /builds on/
      ]] as const
    ) {
      const e = await fails("relay_resolve_conflict", resolve(winner, loser))
      expect(e.code).toBe("invalid_resolution")
      expect(e.message).toMatch(message)
    }
    await ok("relay_resolve_conflict", resolve(x, y))
    const cycle = await fails("relay_resolve_conflict", resolve(y, x))
    expect(cycle).toMatchObject({ code: "invalid_resolution" })
    expect(cycle.message).toMatch(/cycle/)
    const edges = await admin.query<{ w: string; l: string }>(
      relays.main.graph,
      "MATCH (w)-[:SUPERSEDES]->(l) RETURN w.id AS w, l.id AS l"
    )
    expect(edges).toEqual([{ w: x, l: y }])
  })

  it("rate_limited: past RELAY_RATE_LIMIT calls a minute, with when to retry", async () => {
    const { call, fails } = mcp.limited
    for (let i = 0; i < 3; i++) expect((await call("relay_get_current_state")).isError).toBeFalsy()
    const e = await fails("relay_save_fact", { content: "one too many", written_by: "a", session_id: "s" })
    expect(e.code).toBe("rate_limited")
    expect(e.message).toMatch(/more than 3 calls a minute; retry after \d+ s/)
    expect((await fails("relay_get_clusters")).code).toBe("rate_limited")
    expect(await factCount(relays.limited)).toBe(0)
  })

  it("unavailable: with no database every tool answers within 3 s with a generic message", async () => {
    const { call } = mcp.closed
    const timed = await Promise.all(everyTool.map(async ([tool, args]) => {
      const started = performance.now()
      const result = await call(tool, args)
      return { tool, result, ms: performance.now() - started }
    }))
    // One message for the reads; the writes (which may have landed) say to retry with the same request_id.
    const writes = new Set(["relay_save_fact", "relay_resolve_conflict"])
    const messages = { read: new Set<string>(), write: new Set<string>() }
    for (const { ms, result, tool } of timed) {
      expect(result.isError, tool).toBe(true)
      expect(errorOf(result).code, tool).toBe("unavailable")
      expect(ms, tool).toBeLessThan(3000)
      messages[writes.has(tool) ? "write" : "read"].add(errorOf(result).message)
    }
    expect(messages.read).toEqual(new Set(["the memory database is unavailable right now; try again shortly"]))
    expect(messages.write.size).toBe(1)
    expect([...messages.write][0]).toMatch(/may still have landed: retry shortly with the same request_id/)
    for (const message of [...messages.read, ...messages.write]) {
      for (const leak of [String(closedPort), "127.0.0.1", runDatabase().password, "ECONNREFUSED", "Error", "MATCH"]) {
        expect(message).not.toContain(leak)
      }
    }
    // the detail is in the server's log, and checks that need no database still answer with their own codes
    expect(relays.closed.stderr()).toMatch(/ECONNREFUSED/)
    expect((await mcp.closed.fails("relay_get_context", { fact_id: "nope" })).code).toBe("invalid_input")
    const secret = await mcp.closed.fails("relay_save_fact", {
      content: "key AKIAIXPRXOUYC3DMUK5K",
      written_by: "a",
      session_id: "s"
    })
    expect(secret.code).toBe("secret_detected")
    expect(isAlive(relayPid(relays.closed))).toBe(true)
  })

  /**
   * `internal` has no path through valid use: every failure Relay expects is one of the codes above.
   * It is reachable when the graph breaks Relay's own invariants behind its back: here a Fact whose
   * created_at is not a number, written with a raw query. The call must fail generically, the
   * process must log the defect and keep serving.
   */
  it("internal: a fact corrupted behind Relay's back fails generically and the server keeps serving", async () => {
    const { fails, ok } = mcp.corrupt
    const good = (await ok("relay_save_fact", { content: "a sound fact", written_by: "a", session_id: "s" })).fact.id
    const bad = someId()
    await admin.query(
      relays.corrupt.graph,
      "CREATE (:Fact {id: $id, content: 'broken', norm: 'broken', written_by: 'x', session_id: 's', created_at: 'not a time'})",
      { id: bad }
    )
    // (relay_get_current_state pages by a created_at range now, which a text created_at is outside of.)
    for (const [tool, args] of [["relay_get_context", { fact_id: bad }]] as const) {
      const e = await fails(tool, args)
      expect(e.code, tool).toBe("internal")
      expect(e.message).toBe("Relay hit an internal error; the details are in its log")
    }
    expect(relays.corrupt.stderr()).toMatch(/internal error/)
    expect((await ok("relay_get_context", { fact_id: good })).chain.map((f) => f.id)).toEqual([good])
    expect(isAlive(relayPid(relays.corrupt))).toBe(true)
  })
})
