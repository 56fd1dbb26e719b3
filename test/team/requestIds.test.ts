import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { JsonHttpTransport } from "../../src/http/jsonTransport.js"

/**
 * Answers go back on the POST that asked, matched by request id. Here the test is the MCP server
 * behind a real transport on a real HTTP server, so it answers exactly when it chooses: after the
 * client has hung up and sent the same id again.
 */
let server: Server
let url = ""
const transport = new JsonHttpTransport({ onsessioninitialized: () => {} })
const arrived: Array<(m: JSONRPCMessage) => void> = []
const closed: Array<() => void> = []

beforeAll(async () => {
  transport.onmessage = (m) => {
    if ("id" in m) arrived.shift()?.(m)
  }
  server = createServer(async (req, res) => {
    res.once("close", () => closed.shift()?.())
    const chunks: Array<Buffer> = []
    for await (const c of req) chunks.push(c as Buffer)
    transport.handle(req, res, JSON.parse(Buffer.concat(chunks).toString()) as unknown)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => {
  server.closeAllConnections()
  return new Promise<void>((resolve) => server.close(() => resolve()))
})

const post = (body: unknown, signal?: AbortSignal) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal })
  })

/** The id is free again: a new request with it is taken, and gets its own answer. */
const expectFree = async (id: number) => {
  const next = new Promise<JSONRPCMessage>((resolve) => arrived.push(resolve))
  const again = post({ jsonrpc: "2.0", id, method: "ping" })
  await next
  await transport.send({ jsonrpc: "2.0", id, result: {} })
  expect(await (await again).json()).toEqual({ jsonrpc: "2.0", id, result: {} })
}

describe("a request id whose client hung up", () => {
  it("stays in use until its answer is made, so a new request with it never gets that answer", async () => {
    const hungUp = new AbortController()
    const first = new Promise<JSONRPCMessage>((resolve) => arrived.push(resolve))
    const gone = new Promise<void>((resolve) => closed.push(resolve))
    const abandoned = post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow" } }, hungUp.signal)
      .catch(() => "aborted")
    await first
    hungUp.abort()
    expect(await abandoned).toBe("aborted")
    await gone

    // Before, the id was free again at the hang-up: this POST was taken, and got the slow call's
    // late answer.
    const reusedArrived = new Promise<JSONRPCMessage>((resolve) => arrived.push(resolve))
    const reusing = post({ jsonrpc: "2.0", id: 1, method: "ping" })
    await Promise.race([reusing, reusedArrived])
    arrived.length = 0
    await transport.send({ jsonrpc: "2.0", id: 1, result: { content: [], from: "the slow call" } })
    const reused = await reusing
    expect(await reused.json()).toMatchObject({ error: { code: -32600 } })
    expect(reused.status).toBe(400)

    await expectFree(1)
  })

  it("is freed when the client cancels it, and its POST is closed with 202, since no answer will come", async () => {
    const first = new Promise<JSONRPCMessage>((resolve) => arrived.push(resolve))
    const held = post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow" } })
    await first
    const cancel = await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } })
    expect(cancel.status).toBe(202)
    // Before, the POST waited for an answer the server never makes, and the id stayed taken.
    expect((await held).status).toBe(202)
    await expectFree(2)
  })

  it("ignores what the server ignores: a cancellation of id 0, or of a request not yet received", async () => {
    const both = new Promise<void>((resolve) => {
      let n = 0
      const one = () => (++n === 2 ? resolve() : arrived.push(one))
      arrived.push(one)
    })
    const batch = post([
      { jsonrpc: "2.0", id: 0, method: "tools/call", params: { name: "slow" } },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow" } }
    ])
    await both
    // The SDK skips a cancellation whose requestId is falsy, and answers the request after all.
    await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0 } })
    await transport.send({ jsonrpc: "2.0", id: 0, result: { n: 0 } })
    await transport.send({ jsonrpc: "2.0", id: 1, result: { n: 1 } })
    // Before, 0 counted as cancelled and answered, and the POST ended with 0's answer alone.
    expect(await (await batch).json()).toEqual([
      { jsonrpc: "2.0", id: 0, result: { n: 0 } },
      { jsonrpc: "2.0", id: 1, result: { n: 1 } }
    ])

    const request = new Promise<JSONRPCMessage>((resolve) => arrived.push(resolve))
    const early = post([
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } },
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "slow" } }
    ])
    await request
    const reused = await post({ jsonrpc: "2.0", id: 5, method: "ping" })
    expect(reused.status).toBe(400)
    await transport.send({ jsonrpc: "2.0", id: 5, result: { n: 5 } })
    expect(await (await early).json()).toEqual([{ jsonrpc: "2.0", id: 5, result: { n: 5 } }])
  })
})
