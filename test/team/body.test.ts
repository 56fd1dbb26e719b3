import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Http from "../support/httpRelay.js"
import { outputOf } from "../support/toolOutputs.js"

/**
 * A session's requests are read and answered by Relay's own transport (src/http/jsonTransport.ts),
 * not the SDK's: it must still refuse what the SDK refused (bad JSON, over 4 MB, a wrong Accept or
 * Content-Type, an unknown protocol version, a message that is not JSON-RPC, an oversized batch),
 * and what it added (an empty batch, an id used twice, nesting deeper than any MCP message)
 * with the SDK's status codes and write nothing for it, and still serve good calls.
 */
const env = Http.databaseEnv(Http.uniqueName("relay_tokens_body"))
let relay: Http.HttpRelay
let client: Http.HttpClient
let token = ""

beforeAll(async () => {
  token = await Http.createToken(env, Http.uniqueName("alice"), Http.uniqueName("body"))
  relay = await Http.startHttpRelay(env)
  client = await Http.connectHttp(relay.url, token)
}, 120_000)

afterAll(async () => {
  await client?.close().catch(() => undefined)
  await relay?.stop()
})

const sessionHeaders = (sessionId = client.transport.sessionId!) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  authorization: `Bearer ${token}`,
  "mcp-session-id": sessionId,
  "mcp-protocol-version": "2025-06-18"
})

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(relay.url, { method: "POST", headers: { ...sessionHeaders(), ...headers }, body })

const call = (content: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 9,
    method: "tools/call",
    params: { name: "relay_save_fact", arguments: { content, session_id: "b" } }
  })

describe("a session's request body", () => {
  it("refuses bad JSON with a parse error and an oversized body with 413, and serves a good call", async () => {
    const bad = await post(`${call("half").slice(0, -3)}`)
    expect(bad.status).toBe(400)
    expect((await bad.json() as { error: { code: number } }).error.code).toBe(-32700)

    const huge = await post(call("x".repeat(4 * 1024 * 1024 + 10)))
    expect(huge.status).toBe(413)

    const good = await post(call("Ship on Fridays"))
    expect(good.status).toBe(200)
    const reply = await good.json() as { id: number; result: { structuredContent: { fact: { content: string } } } }
    expect(reply.id).toBe(9)
    expect(reply.result.structuredContent.fact.content).toBe("Ship on Fridays")

    const state = await client.call("relay_get_current_state", {})
    expect(outputOf(state).facts.map((f) => f.content)).toEqual([
      "Ship on Fridays"
    ])
  })

  it("refuses what the SDK's transport refused, with its status codes, and writes nothing for it", async () => {
    const before = await client.call("relay_get_current_state", {})
    const refusals: Array<[Promise<Response>, number, number]> = [
      [post(call("no sse"), { accept: "application/json" }), 406, -32000],
      [post(call("plain text"), { "content-type": "text/plain" }), 415, -32000],
      [post(call("old version"), { "mcp-protocol-version": "1999-01-01" }), 400, -32000],
      [post(JSON.stringify({ hello: "world" })), 400, -32700],
      [post(JSON.stringify(Array.from({ length: 101 }, () => JSON.parse(call("batch")) as unknown))), 400, -32600],
      [post(call("no such session"), { "mcp-session-id": "not-a-session" }), 404, -32001],
      [post(JSON.stringify(Http.initializeBody)), 400, -32600],
      [post("[]"), 400, -32600],
      // answers are matched by id: the same id twice in a batch would leave the POST unanswered
      [
        post(JSON.stringify([
          { jsonrpc: "2.0", id: 5, method: "tools/list" },
          { jsonrpc: "2.0", id: 5, method: "ping" }
        ])),
        400,
        -32600
      ],
      // refused before parsing: a few MB of `[` stalled the server for seconds
      [post(call("deep").replace("\"deep\"", `${"[".repeat(200_000)}${"]".repeat(200_000)}`)), 400, -32600]
    ]
    for (const [reply, status, code] of refusals) {
      const r = await reply
      expect(r.status).toBe(status)
      expect((await r.json() as { error: { code: number } }).error.code).toBe(code)
    }
    const after = await client.call("relay_get_current_state", {})
    expect(outputOf(after).facts).toEqual(outputOf(before).facts)
  })

  it("answers a notification with 202, a batch with an array, and a request with JSON and its session", async () => {
    const note = await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
    expect(note.status).toBe(202)
    expect(await note.text()).toBe("")

    const batch = await post(JSON.stringify([
      { jsonrpc: "2.0", id: "a", method: "tools/list" },
      { jsonrpc: "2.0", id: "b", method: "ping" }
    ]))
    expect(batch.status).toBe(200)
    const answers = await batch.json() as Array<{ id: string; result: Record<string, unknown> }>
    expect(answers.map((a) => a.id)).toEqual(["a", "b"])
    expect(answers[0]!.result.tools).toBeInstanceOf(Array)

    const one = await post(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }))
    expect(one.headers.get("content-type")).toBe("application/json")
    expect(one.headers.get("mcp-session-id")).toBe(client.transport.sessionId)
    expect(await one.json()).toEqual({ jsonrpc: "2.0", id: 3, result: {} })
  })

  it("offers no GET stream (405) and ends a session on DELETE", async () => {
    const other = await Http.connectHttp(relay.url, token)
    const sessionId = other.transport.sessionId!
    const get = await fetch(relay.url, { method: "GET", headers: sessionHeaders(sessionId) })
    expect(get.status).toBe(405)
    expect(get.headers.get("allow")).toBe("POST, DELETE")
    // The SDK's client takes the 405 as "no stream" and goes on.
    expect((await other.call("relay_get_current_state", {})).isError).toBeFalsy()

    await other.transport.terminateSession()
    const gone = await post(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" }), { "mcp-session-id": sessionId })
    expect(gone.status).toBe(404)
    await other.close()
    // The first session is untouched.
    expect((await client.call("relay_get_current_state", {})).isError).toBeFalsy()
  })
})
