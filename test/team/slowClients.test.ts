import { connect, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Http from "../support/httpRelay.js"

/**
 * A client that opens connections and sends nothing, or headers a byte at a time, must not hold the
 * server's connections (issue 26: 520 trickling sockets held all 512 slots and a valid client got
 * ECONNRESET on 37 of 40 calls). Two servers: one with a short headers deadline, one with small caps
 * (6 connections, 3 a peer still sending headers) and the default deadline, so the trickles stay open
 * unless the caps close them.
 */
const env = Http.databaseEnv(Http.uniqueName("relay_tokens_slow"))
const workspace = Http.uniqueName("slow")
let quick: Http.HttpRelay
let capped: Http.HttpRelay
let token = ""

beforeAll(async () => {
  token = await Http.createToken(env, Http.uniqueName("valid"), workspace)
  ;[quick, capped] = await Promise.all([
    Http.startHttpRelay({ ...env, RELAY_HTTP_HEADERS_TIMEOUT_MS: "300", RELAY_HTTP_REQUEST_TIMEOUT_MS: "60000" }),
    Http.startHttpRelay({ ...env, RELAY_HTTP_MAX_CONNECTIONS: "6", RELAY_HTTP_MAX_PENDING_PER_PEER: "3" })
  ])
}, 120_000)

afterAll(async () => {
  await Promise.all([quick?.stop(), capped?.stop()])
})

/** A connection from `from` (an address of the loopback range, so tests can be several peers). */
const open = (url: string, from = "127.0.0.1") =>
  new Promise<Socket>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = connect({ port: Number(port), host: hostname, localAddress: from }, () => resolve(socket))
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

/** A connection that has sent the first bytes of a request's headers and no more. */
const trickle = async (url: string, from: string) => {
  const socket = await open(url, from)
  const closed = untilClosed(socket)
  let isClosed = false
  void closed.then(() => (isClosed = true))
  socket.write(`POST /mcp HTTP/1.1\r\nHost: ${new URL(url).host}\r\nAuthor`)
  return { socket, closed, isClosed: () => isClosed }
}

describe("slow and idle connections", () => {
  it("answers 408 and closes a connection whose headers do not arrive within the headers deadline", async () => {
    const partial = await open(quick.url)
    const partialEnd = untilClosed(partial)
    partial.write(`POST /mcp HTTP/1.1\r\nHost: ${new URL(quick.url).host}\r\n`)
    const idle = await open(quick.url)
    const idleEnd = untilClosed(idle)
    // The request timeout is a minute: these are cut by the 300 ms headers deadline.
    expect(await partialEnd).toMatch(/^HTTP\/1\.1 408 /)
    expect(await idleEnd).toMatch(/^HTTP\/1\.1 408 /)
  })

  it("closes a peer's oldest trickle past its cap, at the overall cap the oldest of any peer, never a valid client's", async () => {
    const url = capped.url
    // Peer .2 opens 4: its cap is 3 still sending headers, so the first is closed.
    const fromTwo = []
    for (let i = 0; i < 4; i++) fromTwo.push(await trickle(url, "127.0.0.2"))
    expect(await fromTwo[0]!.closed).toBe("")
    expect(fromTwo.slice(1).map((t) => t.isClosed())).toEqual([false, false, false])
    // Peer .3 fills the server: 6 open, all still sending headers.
    const fromThree = []
    for (let i = 0; i < 3; i++) fromThree.push(await trickle(url, "127.0.0.3"))
    expect([...fromTwo.slice(1), ...fromThree].some((t) => t.isClosed())).toBe(false)

    // A valid client gets in and every call is answered: each of its connections closed the oldest trickle.
    const client = await Http.connectHttp(url, token)
    try {
      for (let i = 0; i < 10; i++) {
        expect((await client.call("relay_get_current_state", { limit: 1 })).isError).toBeFalsy()
      }
      expect(fromTwo[1]!.isClosed()).toBe(true)
      // A new wave of trickles closes only connections still sending headers, never the client's.
      const wave = []
      for (let i = 0; i < 8; i++) wave.push(await trickle(url, i % 2 === 0 ? "127.0.0.4" : "127.0.0.5"))
      for (let i = 0; i < 10; i++) {
        expect((await client.call("relay_get_current_state", { limit: 1 })).isError).toBeFalsy()
      }
      for (const t of [...fromTwo, ...fromThree, ...wave]) t.socket.destroy()
    } finally {
      await client.close()
    }
  })
})
