import { Agent, request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Http from "../support/httpRelay.js"

/**
 * Issue 40: 520 kept-alive sockets, each sending a request with a valid token (read-only works) to a
 * bogus session every 2 s, held 511 of 512 slots, and alice in another workspace got ECONNRESET on
 * every new connection: a connection that once carried a valid token was never closed for room, and
 * a request to an unknown session ran no tool, so no rate limit. Scaled down here: 40 sockets against
 * a cap of 24 connections, 6 a token, a request each every 100 ms.
 */
const env = Http.databaseEnv(Http.uniqueName("relay_tokens_edge"), { RELAY_RATE_LIMIT: "20" })
let relay: Http.HttpRelay
let attacker = ""
let alice = ""
let spender = ""

beforeAll(async () => {
  attacker = await Http.createToken(env, "mallory", Http.uniqueName("team-a"), true)
  alice = await Http.createToken(env, "alice", Http.uniqueName("team-b"))
  spender = await Http.createToken(env, "spender", Http.uniqueName("team-c"), true)
  relay = await Http.startHttpRelay({
    ...env,
    RELAY_HTTP_MAX_CONNECTIONS: "24",
    RELAY_HTTP_MAX_CONNECTIONS_PER_TOKEN: "6"
  })
}, 120_000)

afterAll(async () => {
  await relay?.stop()
})

/** One POST to a session that does not exist, on a kept-alive socket of `agent`: its status, or the error. */
const toBogusSession = (agent: Agent, token: string) =>
  new Promise<number | string>((resolve) => {
    const { hostname, port } = new URL(relay.url)
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    const req = request({
      agent,
      host: hostname,
      port: Number(port),
      path: "/mcp",
      method: "POST",
      // Another machine than alice's: the loopback range gives each test peer its own address.
      localAddress: "127.0.0.2",
      headers: {
        host: new URL(relay.url).host,
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": "bogus-session"
      }
    }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"))
    req.end(body)
  })

describe("the edge keeps a share for new clients", () => {
  it("lets alice's new connections in while one token's kept-alive sockets loop on a bogus session", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 40 })
    let attacking = true
    const seen = new Map<number | string, number>()
    const attack = (async () => {
      while (attacking) {
        const round = await Promise.all(Array.from({ length: 40 }, () => toBogusSession(agent, attacker)))
        for (const status of round) seen.set(status, (seen.get(status) ?? 0) + 1)
        await new Promise((r) => setTimeout(r, 100))
      }
    })()
    try {
      // Let the attack fill the server first.
      while ((seen.get(404) ?? 0) + (seen.get(429) ?? 0) < 80) await new Promise((r) => setTimeout(r, 50))
      for (let i = 0; i < 3; i++) {
        const client = await Http.connectHttp(relay.url, alice)
        try {
          expect((await client.call("relay_get_current_state", { limit: 1 })).isError).toBeFalsy()
        } finally {
          await client.close()
        }
      }
    } finally {
      attacking = false
      await attack
      agent.destroy()
    }
    // The attacker's requests were refused for rate (its bucket of 20 spent) or for its connection cap.
    expect(seen.get(429) ?? 0).toBeGreaterThan(0)
  }, 60_000)

  it("counts requests to an unknown session against the token's rate limit", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const statuses = []
      for (let i = 0; i < 22; i++) statuses.push(await toBogusSession(agent, spender))
      expect(statuses.slice(0, 20)).toEqual(Array(20).fill(404))
      expect(statuses.slice(20)).toEqual([429, 429])
      // The same bucket as its tool calls: a session of that token is refused too.
      const client = await Http.connectHttp(relay.url, spender)
      try {
        const refused = await client.call("relay_get_current_state", { limit: 1 })
        expect(refused.isError).toBe(true)
        expect(refused.content[0]?.text).toMatch(/^rate_limited/)
      } finally {
        await client.close()
      }
    } finally {
      agent.destroy()
    }
  })
})
