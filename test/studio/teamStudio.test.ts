import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  connectHttp,
  createToken,
  databaseEnv,
  type HttpClient,
  type HttpRelay,
  startHttpRelay,
  tokenCommand,
  uniqueName
} from "../support/httpRelay.js"

/**
 * The studio in team mode (`relay --http`, /studio): signing in with a token opens that token's
 * workspace only, read-only; a wrong token, a foreign Origin or no session gets nothing; a revoked
 * token's session ends. Plain HTTP against the real server (the page itself is test/studio/studio.test.ts).
 */
const tokenGraph = uniqueName("relay_tokens_studio")
const env = databaseEnv(tokenGraph, { RELAY_HTTP_TOKEN_RECHECK_MS: "0" })
const acme = uniqueName("acme")
const globex = uniqueName("globex")

let relay: HttpRelay
let origin: string
let writer: HttpClient
const tokens: Record<string, string> = {}

const signIn = async (token: string, from = origin) => {
  const r = await fetch(`${origin}/studio/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: from },
    body: new URLSearchParams({ token }).toString()
  })
  const cookie = r.headers.get("set-cookie")?.split(";")[0]
  return { status: r.status, location: r.headers.get("location"), cookie }
}

const api = (path: string, cookie: string | undefined) =>
  fetch(`${origin}/studio/api/${path}`, { headers: cookie === undefined ? {} : { cookie } })

beforeAll(async () => {
  relay = await startHttpRelay(env)
  origin = new URL(relay.url).origin
  ;[tokens.alice, tokens.bob] = await Promise.all([createToken(env, "alice", acme), createToken(env, "bob", globex)])
  writer = await connectHttp(relay.url, tokens.alice!)
  const r = await writer.call("relay_save_fact", { content: "acme ships on fridays", session_id: "a-1" })
  expect(r.isError).toBeFalsy()
}, 60_000)

afterAll(async () => {
  await writer?.close()
  await relay?.stop()
})

describe("the studio in team mode", () => {
  it("a token signs in to its own workspace only, read-only", async () => {
    const alice = await signIn(tokens.alice!)
    expect(alice).toMatchObject({ status: 303, location: "/studio/" })
    expect(alice.cookie).toMatch(/^relay_studio=/)
    const me = await api("me", alice.cookie)
    expect(await me.json()).toEqual({ name: "alice" })
    const found = await (await api("search?q=fridays", alice.cookie)).json() as {
      hits: Array<{ fact: { content: string } }>
    }
    expect(found.hits.map((h) => h.fact.content)).toEqual(["acme ships on fridays"])
    const bob = await signIn(tokens.bob!)
    const none = await (await api("search?q=fridays", bob.cookie)).json() as { hits: Array<unknown> }
    expect(none.hits).toEqual([])
    // The studio never writes: no method but GET, whatever the token may do.
    const post = await fetch(`${origin}/studio/api/threads`, { method: "POST", headers: { cookie: alice.cookie! } })
    expect(post.status).toBe(405)
  })

  it("refuses a wrong token, a sign-in from another site and requests without a session", async () => {
    expect(await signIn("not-a-token")).toMatchObject({
      status: 303,
      location: "/studio/?signin=failed",
      cookie: undefined
    })
    expect((await signIn(tokens.alice!, "http://evil.example")).status).toBe(403)
    const anonymous = await api("threads", undefined)
    expect(anonymous.status).toBe(401)
    expect(await anonymous.json()).toMatchObject({ team: true })
    const page = await fetch(`${origin}/studio/`)
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'")
  })

  it("a revoked token's session ends", async () => {
    const carol = await createToken(env, "carol", acme)
    const session = await signIn(carol)
    expect((await api("me", session.cookie)).status).toBe(200)
    await tokenCommand(env, ["revoke", "carol"])
    expect((await api("me", session.cookie)).status).toBe(401)
  })
})
