import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  connectHttp,
  createToken,
  databaseEnv,
  type HttpClient,
  type HttpRelay,
  startHttpRelay,
  uniqueName
} from "../support/httpRelay.js"

/**
 * A session's POST body is read by Relay (not the SDK) and handed over parsed: it must still refuse
 * what the SDK refused (bad JSON, over 4 MB) and write nothing for it, and still serve a good call.
 */
const env = databaseEnv(uniqueName("relay_tokens_body"))
let relay: HttpRelay
let client: HttpClient
let token = ""

beforeAll(async () => {
  token = await createToken(env, uniqueName("alice"), uniqueName("body"))
  relay = await startHttpRelay(env)
  client = await connectHttp(relay.url, token)
}, 120_000)

afterAll(async () => {
  await client?.close().catch(() => undefined)
  await relay?.stop()
})

const post = (body: string) =>
  fetch(relay.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-session-id": client.transport.sessionId!,
      "mcp-protocol-version": "2025-06-18"
    },
    body
  })

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
    expect((state.structuredContent.facts as Array<{ content: string }>).map((f) => f.content)).toEqual([
      "Ship on Fridays"
    ])
  })
})
