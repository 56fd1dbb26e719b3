import { afterAll, beforeAll, expect, it } from "vitest"
import * as Http from "../support/httpRelay.js"

/**
 * Clients that never close their sessions (the conformance suite opened 31 and sent no DELETE) must
 * not lock their token out: at the per-token cap a new session closes that token's least recently
 * used idle one instead of answering 429.
 */
const env = Http.databaseEnv(Http.uniqueName("relay_tokens_evict"), { RELAY_HTTP_MAX_SESSIONS_PER_TOKEN: "2" })
let relay: Http.HttpRelay
let token = ""
const clients: Array<Http.HttpClient> = []

beforeAll(async () => {
  token = await Http.createToken(env, Http.uniqueName("leaver"), Http.uniqueName("evict"))
  relay = await Http.startHttpRelay(env)
}, 120_000)

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)))
  await relay?.stop()
})

const connect = async () => {
  const c = await Http.connectHttp(relay.url, token)
  clients.push(c)
  return c
}
const works = (c: Http.HttpClient) =>
  c.call("relay_get_current_state", { limit: 1 }).then((r) => r.isError !== true, () => false)

it("a session past the token's cap closes its least recently used idle session, not the new one", async () => {
  const a = await connect()
  const b = await connect()
  // b's own call first: the SDK client opens its GET stream after connect without waiting, and a
  // request in flight keeps a session from being closed; b's call makes sure that one has ended.
  expect(await works(b)).toBe(true)
  expect(await works(a)).toBe(true)
  // b is now the least recently used: the third session closes it, and a stays.
  const c = await connect()
  expect(await works(c)).toBe(true)
  expect(await works(b)).toBe(false)
  expect(await works(a)).toBe(true)
  expect(await works(c)).toBe(true)
  // a was last used before c: the fourth session closes a.
  const d = await connect()
  expect([await works(a), await works(c), await works(d)]).toEqual([false, true, true])
})
