import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { workspaceGraph } from "../../src/domain/tokens.js"
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
import { withRawDatabase } from "../support/rawDatabase.js"

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
let httpsRelay: HttpRelay
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
  // A second server reached over https (its public URL; the test talks to its loopback address).
  relay = await startHttpRelay(env)
  httpsRelay = await startHttpRelay(databaseEnv(tokenGraph, { RELAY_PUBLIC_URL: "https://studio.example" }))
  origin = new URL(relay.url).origin
  ;[tokens.alice, tokens.bob] = await Promise.all([createToken(env, "alice", acme), createToken(env, "bob", globex)])
  writer = await connectHttp(relay.url, tokens.alice!)
  const r = await writer.call("relay_save_fact", { content: "acme ships on fridays", session_id: "a-1" })
  expect(r.isError).toBeFalsy()
}, 60_000)

afterAll(async () => {
  await writer?.close()
  await Promise.all([relay?.stop(), httpsRelay?.stop()])
})

/** A live stream of a session: its status, and a reader of everything it sends until it ends. */
const stream = async (cookie: string | undefined) => {
  const abort = new AbortController()
  const r = await fetch(`${origin}/studio/events`, {
    headers: cookie === undefined ? {} : { cookie },
    signal: abort.signal
  })
  let text = ""
  const ended = r.status !== 200 ? Promise.resolve("") : (async () => {
    const reader = r.body!.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return text
        text += Buffer.from(value).toString()
      }
    } catch {
      return text
    }
  })()
  return { status: r.status, ended, text: () => text, close: () => abort.abort() }
}

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
    // `null` is what a page that hides its origin (or a sandbox) sends: not the studio's page.
    expect((await signIn(tokens.alice!, "null")).status).toBe(403)
    const anonymous = await api("threads", undefined)
    expect(anonymous.status).toBe(401)
    expect(await anonymous.json()).toMatchObject({ team: true })
    const page = await fetch(`${origin}/studio/`)
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'")
  })

  it("one token has at most 8 sessions (a new one ends its oldest) and 4 live streams; others are not shut out", async () => {
    const sessions = []
    for (let i = 0; i < 9; i++) sessions.push(await signIn(tokens.alice!))
    expect((await api("me", sessions[0]!.cookie)).status).toBe(401)
    for (const s of sessions.slice(1)) expect((await api("me", s.cookie)).status).toBe(200)
    // Four streams over two of its sessions, then the token's share is full; another token's is not.
    const open = [
      await stream(sessions[1]!.cookie),
      await stream(sessions[1]!.cookie),
      await stream(sessions[2]!.cookie),
      await stream(sessions[2]!.cookie)
    ]
    expect(open.map((o) => o.status)).toEqual([200, 200, 200, 200])
    const fifth = await stream(sessions[3]!.cookie)
    expect(fifth.status).toBe(429)
    const bob = await stream((await signIn(tokens.bob!)).cookie)
    expect(bob.status).toBe(200)
    for (const o of [...open, bob]) o.close()
  })

  it("the session cookie is Secure when Relay is reached over https (RELAY_PUBLIC_URL)", async () => {
    const plain = await signIn(tokens.alice!)
    const httpsOrigin = new URL(httpsRelay.url).origin
    const r = await fetch(`${httpsOrigin}/studio/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: httpsOrigin },
      body: new URLSearchParams({ token: tokens.alice! }).toString()
    })
    // The attributes, in any order: the cookie is written by @effect/platform's Cookies.
    const attributes = (header: string | null) => (header ?? "").split("; ").slice(1).sort()
    const kept = ["HttpOnly", "Max-Age=43200", "Path=/studio", "SameSite=Strict"]
    expect(attributes(r.headers.get("set-cookie"))).toEqual([...kept, "Secure"])
    expect(plain.cookie).toBeDefined()
    const plainReply = await fetch(`${origin}/studio/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin },
      body: new URLSearchParams({ token: tokens.alice! }).toString()
    })
    expect(attributes(plainReply.headers.get("set-cookie"))).toEqual(kept)
  })

  it("a revoked token's session and its live streams end: nothing written afterwards reaches them", async () => {
    const carol = await createToken(env, "carol", acme)
    const session = await signIn(carol)
    expect((await api("me", session.cookie)).status).toBe(200)
    const live = await stream(session.cookie)
    expect(live.status).toBe(200)
    await tokenCommand(env, ["revoke", "carol"])
    expect((await api("me", session.cookie)).status).toBe(401)
    const r = await writer.call("relay_save_fact", { content: "written after carol was revoked", session_id: "a-2" })
    expect(r.isError).toBeFalsy()
    // RELAY_HTTP_TOKEN_RECHECK_MS is 0 here: the stream ends at its next poll.
    const text = await Promise.race([
      live.ended,
      new Promise<string>((resolve) => setTimeout(() => resolve("still open"), 5000))
    ])
    live.close()
    expect(text).not.toContain("still open")
    expect(text).not.toContain("written after carol was revoked")
  })

  it("a live stream whose database read fails logs it and says so, then goes on from where it was", async () => {
    const initech = uniqueName("initech")
    const dave = await createToken(env, "dave", initech)
    const daveWriter = await connectHttp(relay.url, dave)
    try {
      expect((await daveWriter.call("relay_save_fact", { content: "initech before", session_id: "d-1" })).isError)
        .toBeFalsy()
      const session = await signIn(dave)
      const live = await stream(session.cookie)
      expect(live.status).toBe(200)
      const until = async (what: () => boolean) => {
        for (let i = 0; i < 100 && !what(); i++) await new Promise((resolve) => setTimeout(resolve, 100))
        return what()
      }
      // The workspace's graph key holds a string for a while: every read of it is a server error.
      const key = workspaceGraph(initech)
      await withRawDatabase(async (db) => {
        const redis = await db.connection
        await redis.rename(key, `${key}_aside`)
        await redis.set(key, "not a graph")
      })
      expect(await until(() => live.text().includes("event: unavailable"))).toBe(true)
      expect(relay.stderr()).toContain("the live feed could not read new records")
      await withRawDatabase(async (db) => {
        const redis = await db.connection
        await redis.del(key)
        await redis.rename(`${key}_aside`, key)
      })
      expect((await daveWriter.call("relay_save_fact", { content: "initech after", session_id: "d-1" })).isError)
        .toBeFalsy()
      expect(await until(() => live.text().includes("initech after"))).toBe(true)
      // Once an outage, not once a poll.
      expect(live.text().split("event: unavailable").length).toBe(2)
      live.close()
    } finally {
      await daveWriter.close()
    }
  })
})
