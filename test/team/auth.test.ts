import { FalkorDB } from "falkordb"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inject } from "vitest"
import {
  connectHttp,
  createToken,
  databaseEnv,
  type HttpClient,
  type HttpRelay,
  initializeBody,
  rawPost,
  startHttpRelay,
  tokenCommand,
  uniqueName
} from "../support/httpRelay.js"
import { errorOf, outputOf, type ToolCallResult } from "../support/toolOutputs.js"

/**
 * Team mode's guarantees, through the real server and the SDK's Streamable HTTP client: no token,
 * a wrong or revoked token, another workspace's token, a spoofed author and a foreign Origin get no
 * fact out and put no fact in; the token's name is the author; a read-only token cannot write.
 */
const tokenGraph = uniqueName("relay_tokens_test")
// Every request asks the database about its token, so a revocation shows at the very next request;
// the recheck window of the default setting is held to its bound in tokenCheck.test.ts (TestClock).
const env = databaseEnv(tokenGraph, { RELAY_HTTP_TOKEN_RECHECK_MS: "0" })
const acme = uniqueName("acme")
const globex = uniqueName("globex")
const alice = uniqueName("alice")
const bob = uniqueName("bob")

let relay: HttpRelay
let db: FalkorDB
const tokens: Record<string, string> = {}
const clients: Array<HttpClient> = []

const connect = async (token: string, headers?: Record<string, string>) => {
  const c = await connectHttp(relay.url, token, headers)
  clients.push(c)
  return c
}

/** Every fact in a workspace's graph, read from the database itself. */
const factsIn = async (workspace: string) => {
  const graph = db.selectGraph(`relay_ws_${workspace}`)
  const reply = await graph.roQuery<{ id: string; by: string; content: string }>(
    "MATCH (f:Fact) RETURN f.id AS id, f.written_by AS by, f.content AS content ORDER BY f.created_at"
  ).catch(() => ({ data: [] }))
  return reply.data ?? []
}

/** The secret part of `relay_<id>_<secret>`: base64url, so it may itself hold "_" (even start with one). */
const secretOf = (token: string) => token.replace(/^relay_[0-9a-f]{16}_/, "")

const errorCode = (r: ToolCallResult) => errorOf(r).code

beforeAll(async () => {
  const { host, password, port } = inject("falkordb")
  db = await FalkorDB.connect({ socket: { host, port }, password })
  // The first makes the admin graph's index; the rest, and the server, can then start together.
  // Alice's comes from the CLI itself (the others are made as it makes them, without a process).
  tokens.alice = (await tokenCommand(env, ["create", "--name", alice, "--workspace", acme])).stdout
  const started = startHttpRelay(env)
  ;[tokens.bob, tokens.reader, tokens.revoked] = await Promise.all([
    createToken(env, bob, globex),
    createToken(env, "acme-reader", acme, true),
    createToken(env, "leaver", acme)
  ])
  await tokenCommand(env, ["revoke", "leaver"])
  relay = await started
}, 180_000)

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)))
  await relay?.stop()
  await db?.close()
})

describe("team mode over Streamable HTTP", () => {
  it("prints a token once and keeps only its hash", async () => {
    expect(tokens.alice).toMatch(/^relay_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/)
    const stored = await db.selectGraph(tokenGraph).roQuery<{ props: Record<string, unknown> }>(
      "MATCH (t:Token) RETURN properties(t) AS props"
    )
    const text = JSON.stringify(stored.data)
    for (const t of Object.values(tokens)) expect(text).not.toContain(secretOf(t))
    const listed = await tokenCommand(env, ["list", "--json"])
    const rows = JSON.parse(listed.stdout) as Array<{ name: string; revokedAt: number | null }>
    expect(rows.find((r) => r.name === "leaver")?.revokedAt).not.toBeNull()
    expect(listed.stdout).not.toContain(secretOf(tokens.alice!))
  })

  it("writes as the token's name: omitted or the same name is accepted, another name is forbidden", async () => {
    const a = await connect(tokens.alice!)
    const listed = await a.client.listTools()
    const save = listed.tools.find((t) => t.name === "relay_save_fact")!
    expect(save.inputSchema.required ?? []).not.toContain("written_by")

    const omitted = await a.call("relay_save_fact", { content: "acme ships on Fridays", session_id: "s1" })
    expect(omitted.isError).toBeFalsy()
    expect(outputOf(omitted).fact.written_by).toBe(alice)
    const same = await a.call("relay_save_fact", { content: "acme uses Postgres", session_id: "s1", written_by: alice })
    expect(outputOf(same).fact.written_by).toBe(alice)

    const spoofed = await a.call("relay_save_fact", { content: "spoofed", session_id: "s1", written_by: "mallory" })
    expect(errorCode(spoofed)).toBe("forbidden")
    expect(errorOf(spoofed).message).toMatch(/^written_by: /)
    const briefing = await a.call("relay_get_briefing", { my_name: "mallory" })
    expect(errorCode(briefing)).toBe("forbidden")
    const ids = [outputOf(omitted).fact.id, outputOf(same).fact.id]
    const resolved = await a.call("relay_resolve_conflict", {
      winner_fact_id: ids[0],
      loser_fact_id: ids[1],
      reason: "test",
      resolved_by: "mallory"
    })
    expect(errorCode(resolved)).toBe("forbidden")
    const spoofRetract = await a.call("relay_retract_fact", {
      fact_id: ids[1],
      reason: "test",
      retracted_by: "mallory"
    })
    expect(errorCode(spoofRetract)).toBe("forbidden")
    expect(errorOf(spoofRetract).message).toMatch(/^retracted_by: /)
    const retracted = await a.call("relay_retract_fact", { fact_id: ids[1], reason: "wrong database" })
    expect(retracted.isError).toBeFalsy()
    expect(outputOf(retracted).retracted_by).toBe(alice)
    expect(outputOf(retracted).fact.status).toBe("retracted")
    // my_name filled in from the token: alice's own facts are left out of her briefing.
    const own = await a.call("relay_get_briefing", {})
    expect(own.isError).toBeFalsy()
    expect(outputOf(own).new_facts.map((f) => f.id)).not.toContain(ids[0])

    expect((await factsIn(acme)).map((f) => f.by)).toEqual([alice, alice])
  })

  it("refuses every write of a read-only token, and lets it read its own workspace", async () => {
    const r = await connect(tokens.reader!)
    const save = await r.call("relay_save_fact", { content: "reader tries", session_id: "s2" })
    expect(errorCode(save)).toBe("forbidden")
    const fridays = (await factsIn(acme)).find((f) => f.content === "acme ships on Fridays")!
    const retract = await r.call("relay_retract_fact", { fact_id: fridays.id, reason: "reader tries" })
    expect(errorCode(retract)).toBe("forbidden")
    const state = await r.call("relay_get_current_state", {})
    expect(state.isError).toBeFalsy()
    expect(JSON.stringify(state.structuredContent)).toContain("acme ships on Fridays")
    expect((await factsIn(acme)).map((f) => f.content)).not.toContain("reader tries")
  })

  it("keeps another workspace's token out of this workspace: nothing read, nothing written", async () => {
    const acmeFacts = await factsIn(acme)
    const b = await connect(tokens.bob!)
    const context = await b.call("relay_get_context", { fact_id: acmeFacts[0]!.id })
    expect(errorCode(context)).toBe("fact_not_found")
    const state = await b.call("relay_get_current_state", {})
    expect(JSON.stringify(state.structuredContent)).not.toContain("acme")
    const built = await b.call("relay_save_fact", {
      content: "globex builds on acme",
      session_id: "s3",
      parent_fact_id: acmeFacts[0]!.id
    })
    expect(errorCode(built)).toBe("fact_not_found")
    const resolved = await b.call("relay_resolve_conflict", {
      winner_fact_id: acmeFacts[0]!.id,
      loser_fact_id: acmeFacts[1]!.id,
      reason: "cross-workspace"
    })
    expect(errorCode(resolved)).toBe("fact_not_found")
    const own = await b.call("relay_save_fact", { content: "globex fact", session_id: "s3" })
    expect(own.isError).toBeFalsy()

    expect(await factsIn(acme)).toEqual(acmeFacts)
    expect((await factsIn(globex)).map((f) => [f.by, f.content])).toEqual([[bob, "globex fact"]])
  })

  it("does not let one token use another token's session", async () => {
    const a = await connect(tokens.alice!)
    const sessionId = a.transport.sessionId!
    const reply = await rawPost(
      relay.url,
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "relay_get_current_state", arguments: {} } },
      { authorization: `Bearer ${tokens.bob}`, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" }
    )
    expect(reply.status).toBe(404)
    expect(await reply.text()).not.toContain("acme")
  })

  it("answers 401 with a Bearer challenge to no token, a wrong token and a revoked one", async () => {
    const before = await factsIn(acme)
    const [id] = /^relay_([0-9a-f]{16})_/.exec(tokens.alice!)!.slice(1)
    const wrong = `relay_${id}_${"A".repeat(43)}`
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer not-a-token" },
      { authorization: `Bearer ${wrong}` },
      { authorization: `Bearer ${tokens.revoked}` },
      { authorization: `Basic ${Buffer.from("alice:pw").toString("base64")}` }
    ]
    for (const headers of cases) {
      const reply = await rawPost(relay.url, initializeBody, headers)
      expect(reply.status).toBe(401)
      expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer /)
      expect(reply.headers.get("mcp-session-id")).toBeNull()
    }
    // The same through the SDK client: the connection itself is refused.
    await expect(connectHttp(relay.url, tokens.revoked!)).rejects.toThrow()
    await expect(connectHttp(relay.url, wrong)).rejects.toThrow()
    expect(await factsIn(acme)).toEqual(before)
  })

  it("stops a token revoked while its session is open at its next request", { timeout: 120_000 }, async () => {
    const name = uniqueName("temp")
    const token = await createToken(env, name, acme)
    const c = await connect(token)
    expect((await c.call("relay_get_current_state", {})).isError).toBeFalsy()
    await tokenCommand(env, ["revoke", name])
    await expect(c.call("relay_save_fact", { content: "after revoke", session_id: "s4" })).rejects.toThrow()
    expect((await factsIn(acme)).map((f) => f.content)).not.toContain("after revoke")
  })

  it("refuses a foreign Origin and a foreign Host before looking at the token", async () => {
    const before = await factsIn(acme)
    const foreign = await rawPost(relay.url, initializeBody, {
      authorization: `Bearer ${tokens.alice}`,
      origin: "https://evil.example"
    })
    expect(foreign.status).toBe(403)
    expect(foreign.headers.get("mcp-session-id")).toBeNull()
    await expect(connect(tokens.alice!, { origin: "https://evil.example" })).rejects.toThrow()
    // Same origin on loopback is no rebinding (the conformance suite's scenario); another port or name is.
    const own = new URL(relay.url).origin
    const sameOrigin = await rawPost(relay.url, initializeBody, {
      authorization: `Bearer ${tokens.alice}`,
      origin: own
    })
    expect(sameOrigin.status).toBe(200)
    await fetch(relay.url, {
      method: "DELETE",
      headers: { authorization: `Bearer ${tokens.alice}`, "mcp-session-id": sameOrigin.headers.get("mcp-session-id")! }
    })
    for (const other of [own.replace("127.0.0.1", "localhost"), `http://127.0.0.1:${Number(new URL(own).port) + 1}`]) {
      const refused = await rawPost(relay.url, initializeBody, {
        authorization: `Bearer ${tokens.alice}`,
        origin: other
      })
      expect(refused.status, other).toBe(403)
    }
    // DNS rebinding: a page on evil.example resolved to 127.0.0.1 sends Host: evil.example.
    const url = new URL(relay.url)
    const rebound = await new Promise<number>((resolve, reject) => {
      import("node:http").then(({ request }) => {
        const req = request({
          host: url.hostname,
          port: url.port,
          path: "/mcp",
          method: "POST",
          headers: {
            host: `evil.example:${url.port}`,
            authorization: `Bearer ${tokens.alice}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream"
          }
        }, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        req.on("error", reject)
        req.end(JSON.stringify(initializeBody))
      }, reject)
    })
    expect(rebound).toBe(403)
    expect(await factsIn(acme)).toEqual(before)
  })
})
