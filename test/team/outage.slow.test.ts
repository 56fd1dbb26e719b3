import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchChromium, signInToStudio, studioDrawn, watchedPage } from "../browser/browserKit.js"
import { disposeServer } from "../resilience/privateDatabase.js"
import { type RunningServer, startServer } from "../support/falkordbServer.js"
import {
  connectHttp,
  createToken,
  type HttpClient,
  type HttpRelay,
  rawPost,
  startHttpRelay,
  uniqueName
} from "../support/httpRelay.js"
import { outputOf } from "../support/toolOutputs.js"

/**
 * `relay --http` whose FalkorDB is killed or paused under it. The token check is a database read
 * (on every request with RELAY_HTTP_TOKEN_RECHECK_MS=0); with the database gone it must answer like
 * a tool call does (retried, inside the call budget, so within 3 s), as a 503 with Retry-After that
 * says `unavailable` and nothing of the cause, and the same session must work again once the database
 * is back, without a restart.
 */
let server: RunningServer
let relay: HttpRelay
let client: HttpClient
let token = ""
let env: Record<string, string> = {}
const workspace = uniqueName("outage")

beforeAll(async () => {
  server = await startServer({ persist: true })
  env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    FALKORDB_HOST: server.host,
    FALKORDB_PORT: String(server.port),
    FALKORDB_PASSWORD: server.password,
    RELAY_TOKEN_GRAPH: uniqueName("relay_tokens_outage"),
    RELAY_STRUCTURED_CONTENT: "full",
    // The token is asked about on every request here; a token checked within the window skips the
    // database and meets the outage in its tool call instead (an `unavailable` result).
    RELAY_HTTP_TOKEN_RECHECK_MS: "0"
  }
  token = await createToken(env, uniqueName("alice"), workspace)
  // A process: the test asks that it outlives the outage.
  relay = await startHttpRelay(env, { process: true })
  client = await connectHttp(relay.url, token)
  const saved = await client.call("relay_save_fact", { content: "Queue jobs in Redis", session_id: "outage" })
  expect(saved.isError, JSON.stringify(saved.structuredContent)).toBeFalsy()
}, 120_000)

afterAll(async () => {
  await client?.close().catch(() => undefined)
  await relay?.stop()
  if (server !== undefined) await disposeServer(server)
})

/** A tools/call on the open session, raw, so the status and headers can be read. */
const rawCall = async () => {
  const started = performance.now()
  const response = await rawPost(relay.url, {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "relay_get_current_state", arguments: {} }
  }, {
    authorization: `Bearer ${token}`,
    "mcp-session-id": client.transport.sessionId!,
    "mcp-protocol-version": "2025-06-18"
  })
  return { response, text: await response.text(), millis: performance.now() - started }
}

const expectUnavailable = (r: Awaited<ReturnType<typeof rawCall>>) => {
  expect(r.response.status, r.text).toBe(503)
  expect(r.response.headers.get("retry-after")).toBe("2")
  const body = JSON.parse(r.text) as { error: { message: string; data: { code: string } } }
  expect(body.error.data.code).toBe("unavailable")
  expect(body.error.message).toMatch(/^unavailable: /)
  for (
    const needle of [
      server.host,
      String(server.port),
      server.password,
      "ECONNREFUSED",
      "Redis",
      "Falkor",
      "timed out",
      "Error"
    ]
  ) {
    expect(r.text).not.toContain(needle)
  }
  expect(r.millis).toBeLessThan(3000)
}

const relayAlive = () => expect(() => process.kill(relay.process!.pid!, 0)).not.toThrow()

describe("team mode with its database killed or hung", () => {
  it("answers 503 unavailable with Retry-After within 3 s when the database is killed, and the session works again after", async () => {
    await server.kill()
    expectUnavailable(await rawCall())
    // The SDK's client surfaces it as a failed request carrying the body, which it may send again.
    await expect(client.call("relay_get_current_state", {})).rejects.toThrow(
      /unavailable: Relay cannot reach its database/
    )
    relayAlive()

    await server.restart()
    const after = await client.call("relay_get_current_state", {})
    expect(after.isError, JSON.stringify(after.structuredContent)).toBeFalsy()
    expect(outputOf(after).facts).toHaveLength(1)
  })

  it("answers 503 unavailable within 3 s when the database hangs (SIGSTOP), and recovers when it resumes", async () => {
    const pid = server.process.pid!
    process.kill(pid, "SIGSTOP")
    try {
      expectUnavailable(await rawCall())
      // A second request finds no half-made connection to wait on either.
      expectUnavailable(await rawCall())
      relayAlive()
    } finally {
      process.kill(pid, "SIGCONT")
    }
    const after = await client.call("relay_get_current_state", {})
    expect(after.isError, JSON.stringify(after.structuredContent)).toBeFalsy()
  })
  it("keeps a studio session across the outage, in Chromium: 503 with Retry-After, never 401, the same cookie reads after", async () => {
    const origin = new URL(relay.url).origin
    const browser = await launchChromium()
    try {
      const { page, errors } = await watchedPage(browser, () => ({ status: 404 }))
      const signInError = () =>
        page.waitForSelector(".signin .error").then((e) => e!.evaluate((p) => p.textContent ?? ""))
      const me = () =>
        page.evaluate(async () => {
          const r = await fetch("/studio/api/me")
          return { status: r.status, retryAfter: r.headers.get("retry-after"), body: await r.json() as unknown }
        })
      await page.goto(`${origin}/studio/`)
      await signInToStudio(page, token)
      await studioDrawn(page)

      await server.kill()
      expect(await me()).toMatchObject({ status: 503, retryAfter: "2", body: { error: { code: "unavailable" } } })
      // The person reloads: told to try again, not signed out and not told their token was refused.
      await page.reload()
      expect(await signInError()).toMatch(/cannot reach its database/)
      await signInToStudio(page, token)
      expect(new URL(page.url()).searchParams.get("signin")).toBe("unavailable")
      expect(await signInError()).toMatch(/cannot reach its database/)
      relayAlive()

      await server.restart()
      // The cookie from before the outage still opens the workspace, with no sign-in.
      await page.goto(`${origin}/studio/`)
      await studioDrawn(page)
      expect((await me()).status).toBe(200)
      expect(errors).toEqual([])
    } finally {
      await browser.close()
    }
  })
})
