import { auth } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser } from "puppeteer-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "../support/falkordbServer.js"
import * as Http from "../support/httpRelay.js"
import { Connector } from "../support/oauthConnector.js"
import { callDecoded } from "../support/toolOutputs.js"
import { launchChromium, signInToStudio, studioDrawn, watchedPage } from "./browserKit.js"

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

let documents: Server
let documentsOrigin = ""
let certDir = ""

const hostedCallback = "https://connector.example/api/mcp/auth_callback"

/**
 * A client's metadata document server (CIMD) on loopback over https, as a client hosts its document: a
 * certificate made for 127.0.0.1 by openssl for this run, which Relay trusts through NODE_EXTRA_CA_CERTS,
 * and the server's host:port in RELAY_OAUTH_CLIENT_DOCUMENT_HOSTS (the allowlist that lets a loopback
 * address be fetched at all). `/client.json` is a good document; the others are refused ones.
 */
const serveDocuments = async () => {
  certDir = mkdtempSync(join(tmpdir(), "relay-cimd-"))
  execFileSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
    "-keyout",
    join(certDir, "key.pem"),
    "-out",
    join(certDir, "cert.pem")
  ], { stdio: "ignore" })
  const server = createServer({
    key: readFileSync(join(certDir, "key.pem")),
    cert: readFileSync(join(certDir, "cert.pem"))
  }, (req, res) => {
    const self = `${documentsOrigin}${req.url}`
    const docs: Record<string, unknown> = {
      "/client.json": {
        client_id: self,
        client_name: "Document Client",
        redirect_uris: [hostedCallback],
        token_endpoint_auth_method: "none"
      },
      "/other-id.json": {
        client_id: `${documentsOrigin}/client.json`,
        client_name: "Impostor",
        redirect_uris: [hostedCallback]
      },
      "/evil-redirect.json": { client_id: self, client_name: "Evil", redirect_uris: ["javascript:alert(1)"] }
    }
    const doc = docs[req.url ?? ""]
    if (doc === undefined) return void res.writeHead(404).end()
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=60" }).end(JSON.stringify(doc))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  documentsOrigin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  return server
}
const desktopCallback = "cursor://anysphere.cursor-retrieval/oauth/callback"

beforeAll(async () => {
  const port = await freePort()
  documents = await serveDocuments()
  publicUrl = `http://127.0.0.1:${port}`
  mcpUrl = `${publicUrl}/mcp`
  const env = Http.databaseEnv(tokenGraph, {
    RELAY_HTTP_PORT: String(port),
    RELAY_PUBLIC_URL: publicUrl,
    RELAY_HTTP_TOKEN_RECHECK_MS: "0",
    RELAY_OAUTH_CLIENT_DOCUMENT_HOSTS: new URL(documentsOrigin).host,
    NODE_EXTRA_CA_CERTS: join(certDir, "cert.pem")
  })
  // The token first: the CLI's short connect budget is not shared with Chromium's start on a busy machine.
  relayToken = await Http.createToken(env, person, workspace) // A process, whose NODE_EXTRA_CA_CERTS trusts the documents' own certificate.
  ;[browser, relay] = await Promise.all([launchChromium(), Http.startHttpRelay(env, { process: true })])
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await relay?.stop()
  documents?.close()
  if (certDir !== "") rmSync(certDir, { recursive: true, force: true })
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

  it("a client known by its metadata document (CIMD): no registration, its name and host shown, token, tool call", async () => {
    const asm = await (await fetch(`${publicUrl}/.well-known/oauth-authorization-server`)).json() as Record<
      string,
      unknown
    >
    expect(asm).toMatchObject({
      client_id_metadata_document_supported: true,
      token_endpoint_auth_methods_supported: ["none"]
    })
    const connector = new Connector(hostedCallback, "Document Client", `${documentsOrigin}/client.json`)
    const authorizationUrl = await startSignIn(connector)
    expect(authorizationUrl.searchParams.get("client_id")).toBe(`${documentsOrigin}/client.json`)
    const watched = await watchedPage(browser, hostedAnswer)
    // The page names the host the document came from, beside the name the document claims.
    await watched.page.goto(authorizationUrl.href)
    expect(await watched.page.$$eval("strong", (all) => all.map((e) => e.textContent))).toEqual([
      "Document Client",
      new URL(documentsOrigin).host
    ])
    await decide(watched.page, authorizationUrl, "approve", "Document Client")
    await watched.appNavigation("claude:")
    expect(watched.errors).toEqual([])
    await finishAndCall(connector, new URL(watched.answered[0]!.href), authorizationUrl)
    await watched.page.close()
  })

  it("refuses a metadata document that is not its URL's, names a refused redirect URI, or is on a host not allowed", async () => {
    const authorize = (clientId: string) =>
      fetch(
        `${publicUrl}/authorize?${new URLSearchParams({
          response_type: "code",
          client_id: clientId,
          redirect_uri: hostedCallback,
          code_challenge: "x".repeat(43),
          code_challenge_method: "S256"
        })}`,
        { redirect: "manual" }
      )
    for (
      const clientId of [
        `${documentsOrigin}/other-id.json`,
        `${documentsOrigin}/evil-redirect.json`,
        `${documentsOrigin}/missing.json`,
        // Loopback, and not the allowed host:port: never fetched.
        `https://127.0.0.1:${new URL(publicUrl).port}/.well-known/oauth-authorization-server`,
        "https://169.254.169.254/latest/meta-data"
      ]
    ) {
      const r = await authorize(clientId)
      expect(r.status, clientId).toBe(400)
      expect(((await r.json()) as { error: string }).error).toBe("invalid_client")
    }
  })

  it("the team studio: typing a token into its sign-in form opens that token's workspace", async () => {
    const watched = await watchedPage(browser, () => ({ status: 404 }))
    const { page } = watched
    await page.goto(`${publicUrl}/studio/`)
    await signInToStudio(page, relayToken)
    expect(new URL(page.url()).search).toBe("")
    await studioDrawn(page)
    const me = await page.evaluate(async () => (await fetch("/studio/api/me")).json() as Promise<{ name: string }>)
    expect(me.name).toBe(person)
    expect(watched.errors).toEqual([])
    await page.close()
  })
})
