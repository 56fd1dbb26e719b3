import { auth } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { createHash, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "../support/falkordbServer.js"
import * as Http from "../support/httpRelay.js"
import { Connector } from "../support/oauthConnector.js"
import { callDecoded } from "../support/toolOutputs.js"

/**
 * The flow a hosted connector (claude.ai, ChatGPT) runs against `relay --http` with RELAY_PUBLIC_URL
 * set, driven by the MCP TypeScript SDK client's own OAuth support: discovery from the 401,
 * dynamic registration, PKCE, the consent page submitted as a person would, the token, a tool call,
 * a refresh, a revoke; and the refusals the authorization spec asks for.
 */
const tokenGraph = Http.uniqueName("relay_tokens_oauth")
const workspace = Http.uniqueName("oauth")
const person = Http.uniqueName("dana")
let relay: Http.HttpRelay
let publicUrl = ""
let mcpUrl = ""
let relayToken = ""
let env: Http.DatabaseEnv
const redirectUri = "http://127.0.0.1:9/callback"

beforeAll(async () => {
  const port = await freePort()
  publicUrl = `http://127.0.0.1:${port}`
  mcpUrl = `${publicUrl}/mcp`
  env = Http.databaseEnv(tokenGraph, {
    RELAY_HTTP_PORT: String(port),
    RELAY_PUBLIC_URL: publicUrl,
    RELAY_HTTP_TOKEN_RECHECK_MS: "0",
    // The test is the proxy: X-Forwarded-For from loopback names the client (clientAddress.ts).
    RELAY_HTTP_TRUSTED_PROXIES: "127.0.0.1",
    RELAY_OAUTH_MAX_CLIENTS: "5",
    RELAY_OAUTH_REGISTRATIONS_PER_PEER_HOUR: "5"
  })
  relayToken = await Http.createToken(env, person, workspace)
  relay = await Http.startHttpRelay(env)
}, 120_000)

afterAll(async () => {
  await relay?.stop()
})

/** The connector of these tests: one loopback redirect URI. */
const testConnector = () => new Connector(redirectUri, "Test Connector")

const hiddenFields = (html: string) =>
  Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!])
  )

/**
 * Where the consent form's answer sends the browser on to: the page's refresh target (consentPage.ts).
 * (A 302's Location is read too, so that each refusal below is checked on its own even where the
 * answer's form is not the point; the first test and test/browser pin the page.)
 */
const sentTo = async (reply: Response) => {
  const location = reply.headers.get("location")
  if (location !== null) return new URL(location)
  const html = await reply.text()
  const target = /<meta http-equiv="refresh" content="0; url='([^']+)'">/.exec(html)?.[1]
  expect(target, html).toBeDefined()
  return new URL(target!.replace(/&amp;/g, "&"))
}

/** What a person does on the consent page: open it, paste a Relay token, press a button. Answers the reply. */
const consent = async (authorizationUrl: URL, token: string, decision = "approve") => {
  const page = await fetch(authorizationUrl, { redirect: "manual" })
  expect(page.status).toBe(200)
  const html = await page.text()
  expect(html).toContain("Test Connector")
  const form = new URLSearchParams({ ...hiddenFields(html), relay_token: token, decision })
  const reply = await fetch(`${publicUrl}/consent`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: publicUrl },
    body: form
  })
  return reply
}

const pkce = () => {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

const tokenRequest = (params: Record<string, string>) =>
  fetch(`${publicUrl}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params)
  })

const authorizeUrl = (clientId: string, challenge: string, extra: Record<string, string> = {}) =>
  new URL(`${publicUrl}/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s-1",
    resource: mcpUrl,
    ...extra
  })}`)

/** A code for this client, approved with the Relay token. */
const codeFor = async (clientId: string, challenge: string) => {
  const reply = await consent(authorizeUrl(clientId, challenge), relayToken)
  return (await sentTo(reply)).searchParams.get("code")!
}

const initializeWith = (accessToken: string) =>
  Http.rawPost(mcpUrl, Http.initializeBody, { authorization: `Bearer ${accessToken}` })

describe("OAuth 2.1 for hosted connectors", () => {
  const connector = testConnector()

  it("discovery, registration, PKCE, consent, token, tool call, refresh and revoke with the SDK client", async () => {
    // Discovery starts from the 401's pointer to the protected-resource metadata.
    const unauthorized = await Http.rawPost(mcpUrl, Http.initializeBody)
    expect(unauthorized.status).toBe(401)
    const challengeHeader = unauthorized.headers.get("www-authenticate")!
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challengeHeader)![1]!
    expect(metadataUrl).toBe(`${publicUrl}/.well-known/oauth-protected-resource/mcp`)
    const prm = await (await fetch(metadataUrl)).json() as { resource: string; authorization_servers: Array<string> }
    expect(prm.resource).toBe(mcpUrl)
    const asm = await (await fetch(`${publicUrl}/.well-known/oauth-authorization-server`)).json() as Record<
      string,
      unknown
    >
    expect(asm.code_challenge_methods_supported).toEqual(["S256"])
    expect(asm.registration_endpoint).toBe(`${publicUrl}/register`)

    // The SDK client registers, makes its PKCE pair and sends the person to the consent page.
    const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: connector })
    await expect(new Client({ name: "connector", version: "0" }).connect(first)).rejects.toThrow(/Unauthorized/i)
    expect(connector.info?.client_id).toEqual(expect.any(String))
    const authorizationUrl = connector.authorizationUrl!
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256")
    expect(authorizationUrl.searchParams.get("resource")).toBe(mcpUrl)

    // A wrong Relay token is refused on the page; the right one sends the code back with the state.
    expect((await consent(authorizationUrl, `relay_0123456789abcdef_${"A".repeat(43)}`)).status).toBe(401)
    const approved = await consent(authorizationUrl, relayToken)
    const back = await sentTo(approved)
    expect(back.origin + back.pathname).toBe(redirectUri)
    expect(back.searchParams.get("state")).toBe(authorizationUrl.searchParams.get("state"))
    await first.finishAuth(back.searchParams.get("code")!)
    expect(connector.saved?.access_token).toMatch(/^relay_at_/)

    // Connected with the access token: calls act as the Relay token's name, in its workspace.
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: connector })
    const client = new Client({ name: "connector", version: "0" })
    await client.connect(transport)
    const saved = await callDecoded(client, "relay_save_fact", {
      content: "hosted connectors work",
      session_id: "oauth"
    })
    expect(saved.isError).toBeFalsy()
    expect((saved.structuredContent as { fact: { written_by: string } }).fact.written_by).toBe(person)
    await client.close()

    // Refresh rotates: the new pair works, the old refresh token is spent, and presenting it again
    // (a stolen copy) revokes the whole family.
    const clientId = connector.info!.client_id
    // A refresh asking for another resource is refused and spends nothing: the right one then works.
    const wrongResource = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: connector.saved!.refresh_token!,
      client_id: clientId,
      resource: "https://other.example/mcp"
    })
    expect(wrongResource.status).toBe(400)
    expect(((await wrongResource.json()) as { error: string }).error).toBe("invalid_target")
    const refreshed = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: connector.saved!.refresh_token!,
      client_id: clientId
    })
    expect(refreshed.status).toBe(200)
    const pair = await refreshed.json() as OAuthTokens
    expect(pair.refresh_token).not.toBe(connector.saved!.refresh_token)
    expect((await initializeWith(pair.access_token)).status).toBe(200)
    const replayed = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: connector.saved!.refresh_token!,
      client_id: clientId
    })
    expect(replayed.status).toBe(400)
    expect(((await replayed.json()) as { error: string }).error).toBe("invalid_grant")
    expect((await initializeWith(pair.access_token)).status).toBe(401)

    // Revoke: a fresh pair, revoked by the client, stops at once (recheck window 0 here).
    const { challenge, verifier } = pkce()
    const fresh = await (await tokenRequest({
      grant_type: "authorization_code",
      code: await codeFor(clientId, challenge),
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: clientId,
      resource: mcpUrl
    })).json() as OAuthTokens
    expect((await initializeWith(fresh.access_token)).status).toBe(200)
    const revoked = await fetch(`${publicUrl}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: fresh.access_token, client_id: clientId })
    })
    expect(revoked.status).toBe(200)
    expect((await initializeWith(fresh.access_token)).status).toBe(401)
    // The answer to the consent form is a page that sends the browser on (test/browser clicks it).
    expect(approved.status).toBe(200)
  })

  it("refuses a wrong PKCE verifier, a reused code, another resource and an unregistered redirect URI", async () => {
    const clientId = connector.info!.client_id
    const { challenge, verifier } = pkce()
    const code = await codeFor(clientId, challenge)
    const exchange = (overrides: Record<string, string>) =>
      tokenRequest({
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: clientId,
        ...overrides
      })
    const wrongVerifier = await exchange({ code_verifier: pkce().verifier })
    expect(wrongVerifier.status).toBe(400)
    expect(((await wrongVerifier.json()) as { error: string }).error).toBe("invalid_grant")
    const otherResource = await exchange({ resource: "https://other.example/mcp" })
    expect(((await otherResource.json()) as { error: string }).error).toBe("invalid_target")
    // A refused exchange spends nothing: the right one then works, once.
    expect((await exchange({ resource: mcpUrl })).status).toBe(200)
    const reused = await exchange({})
    expect(reused.status).toBe(400)
    expect(((await reused.json()) as { error: string }).error).toBe("invalid_grant")

    // Asking for a token for another server is refused back to the client, before any consent.
    const other = await fetch(authorizeUrl(clientId, challenge, { resource: "https://other.example/mcp" }), {
      redirect: "manual"
    })
    expect(other.status).toBe(302)
    expect(new URL(other.headers.get("location")!).searchParams.get("error")).toBe("invalid_target")

    // A redirect URI the client did not register is answered directly, never redirected to.
    const evil = await fetch(authorizeUrl(clientId, challenge, { redirect_uri: "https://evil.example/cb" }), {
      redirect: "manual"
    })
    expect(evil.status).toBe(400)
    expect(evil.headers.get("location")).toBeNull()
    // The consent form posted with a swapped redirect URI is refused too.
    const page = await (await fetch(authorizeUrl(clientId, challenge), { redirect: "manual" })).text()
    const tampered = await fetch(`${publicUrl}/consent`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        ...hiddenFields(page),
        redirect_uri: "https://evil.example/cb",
        relay_token: relayToken,
        decision: "approve"
      })
    })
    expect(tampered.status).toBe(400)
    expect(tampered.headers.get("location")).toBeNull()
  })

  it("revoking the Relay token revokes the OAuth tokens it approved; static bearer tokens still work", async () => {
    const clientId = connector.info!.client_id
    const other = await Http.createToken(env, Http.uniqueName("erin"), workspace)
    expect((await initializeWith(other)).status).toBe(200)
    const { challenge, verifier } = pkce()
    const reply = await consent(authorizeUrl(clientId, challenge), other)
    const code = (await sentTo(reply)).searchParams.get("code")!
    const pair = await (await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: clientId
    })).json() as OAuthTokens
    expect((await initializeWith(pair.access_token)).status).toBe(200)
    await Http.tokenCommand(env, ["revoke", other.replace(/^relay_([0-9a-f]{16})_.*$/, "$1")])
    expect((await initializeWith(pair.access_token)).status).toBe(401)
    // The chain ends at the token endpoint too: no new pair for a revoked approver.
    const refreshed = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: pair.refresh_token!,
      client_id: clientId
    })
    expect(refreshed.status).toBe(400)
    expect(((await refreshed.json()) as { error: string }).error).toBe("invalid_grant")
  })

  it("every consent answer carries the same protective headers, the page again after a wrong token too", async () => {
    const { challenge } = pkce()
    const headersOf = (r: Response) =>
      Object.fromEntries(
        ["content-security-policy", "x-frame-options", "referrer-policy", "cache-control"].map((
          h
        ) => [h, r.headers.get(h)])
      )
    const first = await fetch(authorizeUrl(connector.info!.client_id, challenge), { redirect: "manual" })
    expect(headersOf(first)).toMatchObject({ "x-frame-options": "DENY", "referrer-policy": "same-origin" })
    expect(headersOf(first)["content-security-policy"]).toContain("frame-ancestors 'none'")
    const again = await consent(
      authorizeUrl(connector.info!.client_id, challenge),
      `relay_0123456789abcdef_${"B".repeat(43)}`
    )
    expect(again.status).toBe(401)
    expect(headersOf(again)).toEqual(headersOf(first))
    // A form posted from a page that hides its origin is not Relay's page.
    const fromNull = await fetch(`${publicUrl}/consent`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "null" },
      body: new URLSearchParams({ client_id: connector.info!.client_id })
    })
    expect(fromNull.status).toBe(403)
    expect(headersOf(fromNull)).toEqual(headersOf(first))
  })

  it("a start on an existing admin graph logs no warning about indexes that are already there", () => {
    // The token CLI made the admin graph and its index before the server started.
    expect(relay.stderr()).not.toMatch(/already indexed|FalkorDB query failed/)
  })
})

describe("registration a flood cannot exhaust", () => {
  const register = (metadata: Record<string, unknown>, address: string) =>
    fetch(`${publicUrl}/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": address },
      body: JSON.stringify({ token_endpoint_auth_method: "none", ...metadata })
    })

  it("300 registrations from 60 addresses fill nothing: a new client still registers, consents and gets tokens", async () => {
    // One address at a time (its six at once): a test that opened 360 connections at once would meet the
    // per-peer connection cap instead.
    const statuses: Array<Array<number>> = []
    for (let a = 0; a < 60; a++) {
      const six = Array.from(
        { length: 6 },
        () => register({ client_name: "flood", redirect_uris: ["https://flood.example/cb"] }, `10.9.${a}.1`)
      )
      statuses.push((await Promise.all(six)).map((r) => r.status))
    }
    for (const s of statuses) expect(s.sort()).toEqual([201, 201, 201, 201, 201, 429])

    const fresh = testConnector()
    const viaProxy = (url: string | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers)
      headers.set("x-forwarded-for", "10.10.0.1")
      return fetch(url, { ...init, headers })
    }
    expect(await auth(fresh, { serverUrl: mcpUrl, fetchFn: viaProxy })).toBe("REDIRECT")
    const approved = await consent(fresh.authorizationUrl!, relayToken)
    const code = (await sentTo(approved)).searchParams.get("code")!
    expect(await auth(fresh, { serverUrl: mcpUrl, authorizationCode: code, fetchFn: viaProxy })).toBe("AUTHORIZED")
    expect((await initializeWith(fresh.saved!.access_token)).status).toBe(200)
  })

  it("refuses redirect URIs that are http to another host, javascript:, data:, file:, or too many", async () => {
    const refused = [
      ["http://connector.example/cb"],
      ["javascript:alert(1)"],
      ["data:text/html,hi"],
      ["file:///etc/passwd"],
      ["https://connector.example/cb#frag"],
      Array.from({ length: 2000 }, (_, i) => `https://connector.example/cb/${i}`)
    ]
    for (const [i, uris] of refused.entries()) {
      const r = await register({ client_name: "odd", redirect_uris: uris }, `10.11.${i}.1`)
      expect(r.status, uris[0]).toBe(400)
      expect(((await r.json()) as { error: string }).error).toBe("invalid_client_metadata")
    }
    const accepted = await register({
      client_name: "fine",
      redirect_uris: ["https://connector.example/cb", "http://127.0.0.1/cb", "com.example.app:/cb", "cursor://x/cb"]
    }, "10.12.0.1")
    expect(accepted.status).toBe(201)
  })
})
