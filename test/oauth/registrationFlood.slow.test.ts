import { auth } from "@modelcontextprotocol/sdk/client/auth.js"
import { afterAll, beforeAll, expect, it } from "vitest"
import { freePort } from "../support/falkordbServer.js"
import * as Http from "../support/httpRelay.js"
import { Connector } from "../support/oauthConnector.js"

/**
 * The flood of the issue "Sign-in works where people sign in", at its size: 10,000 registrations from
 * 60 addresses (behind a trusted proxy, each its own address, with a registration budget large enough
 * that all of them are accepted), then a new client still registers, is approved and gets tokens
 * that open a session. A registration nobody approved costs no storage, so none of the 10,000 is in
 * anyone's way. (npm test has the same at 300: test/team/oauth.test.ts.)
 */
const tokenGraph = Http.uniqueName("relay_tokens_flood")
let relay: Http.HttpRelay
let publicUrl = ""
let relayToken = ""
const redirectUri = "https://connector.example/cb"

beforeAll(async () => {
  const port = await freePort()
  publicUrl = `http://127.0.0.1:${port}`
  const env = Http.databaseEnv(tokenGraph, {
    RELAY_HTTP_PORT: String(port),
    RELAY_PUBLIC_URL: publicUrl,
    RELAY_HTTP_TRUSTED_PROXIES: "127.0.0.1",
    RELAY_OAUTH_REGISTRATIONS_PER_PEER_HOUR: "1000"
  })
  relayToken = await Http.createToken(env, Http.uniqueName("flo"), Http.uniqueName("flood"))
  relay = await Http.startHttpRelay(env)
}, 120_000)

afterAll(async () => {
  await relay?.stop()
})

it("after 10,000 registrations from 60 addresses a new client registers, consents and gets tokens", async () => {
  let accepted = 0
  for (let batch = 0; batch < 500; batch++) {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      fetch(`${publicUrl}/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": `10.20.${(batch * 20 + i) % 60}.1` },
        body: JSON.stringify({ client_name: "flood", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" })
      })))
    accepted += replies.filter((r) => r.status === 201).length
  }
  expect(accepted).toBe(10_000)

  const fresh = new Connector(redirectUri, "Fresh")
  const viaProxy = (url: string | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers)
    headers.set("x-forwarded-for", "10.21.0.1")
    return fetch(url, { ...init, headers })
  }
  const serverUrl = `${publicUrl}/mcp`
  expect(await auth(fresh, { serverUrl, fetchFn: viaProxy })).toBe("REDIRECT")
  const page = await (await fetch(fresh.authorizationUrl!)).text()
  const fields = Object.fromEntries(
    [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((
      m
    ) => [m[1]!, m[2]!.replace(/&amp;/g, "&")])
  )
  const approved = await fetch(`${publicUrl}/consent`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: publicUrl },
    body: new URLSearchParams({ ...fields, relay_token: relayToken, decision: "approve" })
  })
  expect(approved.status).toBe(200)
  const target = /url='([^']+)'/.exec(await approved.text())![1]!.replace(/&amp;/g, "&")
  const code = new URL(target).searchParams.get("code")!
  expect(await auth(fresh, { serverUrl, authorizationCode: code, fetchFn: viaProxy })).toBe("AUTHORIZED")
  const session = await Http.rawPost(serverUrl, Http.initializeBody, {
    authorization: `Bearer ${fresh.saved!.access_token}`
  })
  expect(session.status).toBe(200)
})
