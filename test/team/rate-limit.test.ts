import { afterAll, beforeAll, expect, it } from "vitest"
import * as Http from "../support/httpRelay.js"
import { errorOf } from "../support/toolOutputs.js"

/**
 * Over HTTP the budget is per token: one busy token is refused while another still gets through. The
 * server holds at most RELAY_HTTP_MAX_SESSIONS sessions of all tokens; a closed one frees its place.
 */
const env = Http.databaseEnv(Http.uniqueName("relay_tokens_rl"), {
  RELAY_RATE_LIMIT: "3",
  RELAY_HTTP_MAX_SESSIONS: "3"
})
const workspace = Http.uniqueName("rl")
let relay: Http.HttpRelay
const clients: Array<Http.HttpClient> = []
let busy = ""
let quiet = ""

beforeAll(async () => {
  busy = await Http.createToken(env, "busy", workspace)
  const started = Http.startHttpRelay(env)
  quiet = await Http.createToken(env, "quiet", workspace)
  relay = await started
}, 180_000)

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)))
  await relay?.stop()
})

const connect = async (token: string) => {
  const c = await Http.connectHttp(relay.url, token)
  clients.push(c)
  return c
}

it("limits each token on its own, across its sessions", async () => {
  const first = await connect(busy)
  for (let i = 0; i < 3; i++) expect((await first.call("relay_get_current_state", {})).isError).toBeFalsy()
  const refused = await first.call("relay_get_current_state", {})
  expect(errorOf(refused).code).toBe("rate_limited")
  // A new session of the same token does not start a new bucket.
  const second = await connect(busy)
  expect(errorOf(await second.call("relay_get_current_state", {})).code).toBe("rate_limited")
  const other = await connect(quiet)
  expect((await other.call("relay_get_current_state", {})).isError).toBeFalsy()
})

it("opens no session past RELAY_HTTP_MAX_SESSIONS, and one again when a session ends", async () => {
  expect(clients).toHaveLength(3)
  const full = await Http.rawPost(relay.url, Http.initializeBody, { authorization: `Bearer ${quiet}` })
  expect(full.status).toBe(503)
  expect(full.headers.get("retry-after")).not.toBeNull()
  expect(full.headers.get("mcp-session-id")).toBeNull()
  await expect(Http.connectHttp(relay.url, quiet)).rejects.toThrow()
  await clients[0]!.transport.terminateSession()
  const again = await connect(quiet)
  expect((await again.call("relay_get_current_state", {})).isError).toBeFalsy()
})

it("counts sessions still opening against the cap: a burst of initializes opens no more than it", async () => {
  // Frees every place; the burst's token is of a workspace no session has opened, so each opening
  // waits for that workspace's store, the longest await between the cap's check and the record.
  for (const c of clients.splice(0)) {
    await c.transport.terminateSession().catch(() => undefined)
    await c.close()
  }
  const burst = await Http.createToken(env, "burst", Http.uniqueName("rl-burst"))
  const replies = await Promise.all(
    Array.from({ length: 20 }, () => Http.rawPost(relay.url, Http.initializeBody, { authorization: `Bearer ${burst}` }))
  )
  const statuses = replies.map((r) => r.status)
  expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0)
  expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(3)
  expect(statuses.every((s) => s === 200 || s === 503)).toBe(true)
})
