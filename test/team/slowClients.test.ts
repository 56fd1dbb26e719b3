import { connect, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Http from "../support/httpRelay.js"

/**
 * A client that opens connections and sends nothing, or a request a byte at a time, must not hold
 * the server's connections (Node's defaults wait 60 s for headers and 300 s for a request, and take
 * connections until the process runs out of files). Two servers: one with a short request timeout,
 * one with a cap of 3 connections and the default timeout, so the held ones stay open.
 */
const env = Http.databaseEnv(Http.uniqueName("relay_tokens_slow"))
let quick: Http.HttpRelay
let capped: Http.HttpRelay

beforeAll(async () => {
  ;[quick, capped] = await Promise.all([
    Http.startHttpRelay({ ...env, RELAY_HTTP_REQUEST_TIMEOUT_MS: "300" }),
    Http.startHttpRelay({ ...env, RELAY_HTTP_MAX_CONNECTIONS: "3" })
  ])
}, 120_000)

afterAll(async () => {
  await Promise.all([quick?.stop(), capped?.stop()])
})

const open = (url: string) =>
  new Promise<Socket>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname, () => resolve(socket))
    socket.once("error", reject)
  })

/** Everything the server writes on the connection until it is closed. */
const untilClosed = (socket: Socket) =>
  new Promise<string>((resolve) => {
    let data = ""
    socket.on("data", (chunk: Buffer) => (data += chunk.toString()))
    socket.on("error", () => undefined)
    socket.on("close", () => resolve(data))
  })

describe("slow and idle connections", () => {
  it("answers 408 and closes a connection whose request does not arrive within the timeout", async () => {
    const partial = await open(quick.url)
    const partialEnd = untilClosed(partial)
    partial.write(`POST /mcp HTTP/1.1\r\nHost: ${new URL(quick.url).host}\r\n`)
    const idle = await open(quick.url)
    const idleEnd = untilClosed(idle)
    expect(await partialEnd).toMatch(/^HTTP\/1\.1 408 /)
    expect(await idleEnd).toMatch(/^HTTP\/1\.1 408 /)
  })

  it("closes connections past the cap as they come, and still serves the ones it holds", async () => {
    const held = [await open(capped.url), await open(capped.url), await open(capped.url)]
    const over = await open(capped.url)
    expect(await untilClosed(over)).toBe("")
    const first = held[0]!
    const answer = untilClosed(first)
    first.end(
      `POST /mcp HTTP/1.1\r\nHost: ${new URL(capped.url).host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`
    )
    // No token: refused, but answered, on a connection within the cap.
    expect(await answer).toMatch(/^HTTP\/1\.1 401 /)
    for (const s of held) s.destroy()
  })
})
