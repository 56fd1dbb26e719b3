import { auth } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Browser } from "puppeteer-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "../support/falkordbServer.js"
import * as Http from "../support/httpRelay.js"
import { callDecoded } from "../support/toolOutputs.js"
import { Connector, launchChromium, watchedPage } from "./browserKit.js"

/**
 * Signing in as people do it, in Chromium (one launch for the file), against `relay --http` with
 * RELAY_PUBLIC_URL: a hosted connector (its callback on another origin, which redirects on to a desktop
 * app's own scheme, as claude.ai's does) and a desktop app whose redirect URI is its own scheme (as
 * Cursor registers) are registered by the SDK's own OAuth client, approved or denied on the consent page
 * by typing a token and clicking, then exchange the code and call a tool; and the team studio is signed
 * in to by typing a token into its form. Chromium applies what a fetch skips: the pages'
 * Content-Security-Policy on every redirect after a form's POST, and their Referrer-Policy (the Origin
 * a form's POST carries). Any CSP refusal or console error fails the test.
 */
const tokenGraph = Http.uniqueName("relay_tokens_browser")
const workspace = Http.uniqueName("browser")
const person = Http.uniqueName("pat")
let relay: Http.HttpRelay
let browser: Browser
let publicUrl = ""
let mcpUrl = ""
let relayToken = ""

const hostedCallback = "https://connector.example/api/mcp/auth_callback"
const desktopCallback = "cursor://anysphere.cursor-retrieval/oauth/callback"

beforeAll(async () => {
  const port = await freePort()
  publicUrl = `http://127.0.0.1:${port}`
  mcpUrl = `${publicUrl}/mcp`
  const env = Http.databaseEnv(tokenGraph, {
    RELAY_HTTP_PORT: String(port),
    RELAY_PUBLIC_URL: publicUrl,
    RELAY_HTTP_TOKEN_RECHECK_MS: "0"
  })
  ;[relayToken, browser] = await Promise.all([Http.createToken(env, person, workspace), launchChromium()])
  relay = await Http.startHttpRelay(env)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await relay?.stop()
})

/** claude.ai's callback page sends the browser on to the desktop app; here, to `claude://`. */
const hostedAnswer = (url: URL) => ({
  status: 302,
  headers: { location: `claude://claude.ai/mcp-callback${url.search}` }
})

/** The SDK client's first auth() call: discovery, registration, PKCE; it leaves the URL a person opens. */
const startSignIn = async (connector: Connector) => {
  expect(await auth(connector, { serverUrl: mcpUrl })).toBe("REDIRECT")
  return connector.authorizationUrl!
}

/** A person on the consent page: sees who asks, types the token, clicks a button. */
const decide = async (page: import("puppeteer-core").Page, url: URL, decision: "approve" | "deny", name: string) => {
  await page.goto(url.href)
  expect(await page.$eval("strong", (e) => e.textContent)).toBe(name)
  // Pasted, as the page asks: one input event with the whole token.
  if (decision === "approve") {
    await page.focus("input[name=relay_token]")
    await page.keyboard.sendCharacter(relayToken)
  }
  await page.click(`button[value=${decision}]`)
}

/** The code-bearing callback, then the SDK client's token exchange and a tool call with the access token. */
const finishAndCall = async (connector: Connector, back: URL, authorizationUrl: URL) => {
  expect(back.searchParams.get("state")).toBe(authorizationUrl.searchParams.get("state"))
  expect(back.searchParams.get("iss")).toBe(`${publicUrl}/`)
  expect(await auth(connector, { serverUrl: mcpUrl, authorizationCode: back.searchParams.get("code")! })).toBe(
    "AUTHORIZED"
  )
  const client = new Client({ name: "browser-connector", version: "0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: connector }))
  const saved = await callDecoded(client, "relay_save_fact", {
    content: `signed in as ${connector.name}`,
    session_id: "b"
  })
  expect(saved.isError).toBeFalsy()
  expect((saved.structuredContent as { fact: { written_by: string } }).fact.written_by).toBe(person)
  await client.close()
}

describe("sign-in in Chromium", () => {
  it("a hosted connector: approve, its callback on another origin redirecting on to claude://, token, tool call", async () => {
    const connector = new Connector(hostedCallback, "Hosted Connector")
    const authorizationUrl = await startSignIn(connector)
    const watched = await watchedPage(browser, hostedAnswer)
    await decide(watched.page, authorizationUrl, "approve", "Hosted Connector")
    const app = await watched.appNavigation("claude:")
    expect(watched.answered.map((u) => u.origin + u.pathname)).toEqual([hostedCallback])
    expect(watched.errors).toEqual([])
    await finishAndCall(connector, new URL(watched.answered[0]!.href), authorizationUrl)
    expect(app.searchParams.get("code")).toBe(watched.answered[0]!.searchParams.get("code"))
    await watched.page.close()
  })

  it("a hosted connector: deny sends access_denied back the same way, and no code", async () => {
    const connector = new Connector(hostedCallback, "Hosted Connector")
    const authorizationUrl = await startSignIn(connector)
    const watched = await watchedPage(browser, hostedAnswer)
    await decide(watched.page, authorizationUrl, "deny", "Hosted Connector")
    const app = await watched.appNavigation("claude:")
    expect(app.searchParams.get("error")).toBe("access_denied")
    expect(app.searchParams.get("code")).toBeNull()
    expect(app.searchParams.get("state")).toBe(authorizationUrl.searchParams.get("state"))
    expect(watched.errors).toEqual([])
    await watched.page.close()
  })

  it("a desktop app with its own scheme (cursor://): approve, token, tool call", async () => {
    const connector = new Connector(desktopCallback, "Desktop App")
    const authorizationUrl = await startSignIn(connector)
    const watched = await watchedPage(browser, () => ({ status: 404 }))
    await decide(watched.page, authorizationUrl, "approve", "Desktop App")
    const back = await watched.appNavigation("cursor:")
    expect(watched.errors).toEqual([])
    await finishAndCall(connector, back, authorizationUrl)
    await watched.page.close()
  })

  it("the team studio: typing a token into its sign-in form opens that token's workspace", async () => {
    const watched = await watchedPage(browser, () => ({ status: 404 }))
    const { page } = watched
    await page.goto(`${publicUrl}/studio/`)
    await page.waitForSelector("input[name=token]")
    await page.type("input[name=token]", relayToken)
    await Promise.all([page.waitForNavigation(), page.click(".signin button[type=submit]")])
    expect(new URL(page.url()).search).toBe("")
    await page.waitForFunction(() => Number(document.body.dataset["refreshes"] ?? "0") > 0, { timeout: 10_000 })
    const me = await page.evaluate(async () => (await fetch("/studio/api/me")).json() as Promise<{ name: string }>)
    expect(me.name).toBe(person)
    expect(watched.errors).toEqual([])
    await page.close()
  })
})
