import type { IncomingMessage } from "node:http"
import { describe, expect, it } from "vitest"
import { addressKey, clientAddress, isProxyEntry, trustedProxies } from "../../src/http/clientAddress.js"
import { makePendingClients } from "../../src/http/oauth/pendingClients.js"
import { redirectUriProblem, redirectUrisProblem } from "../../src/http/oauth/redirectUris.js"

/** The pure rules behind registration and per-client limits (the flows: test/team/oauth.test.ts, test/browser). */
describe("redirect URIs (RFC 8252)", () => {
  it("accepts https, loopback http, and an app's own scheme", () => {
    for (
      const uri of [
        "https://claude.ai/api/mcp/auth_callback",
        "https://chatgpt.com/connector_platform_oauth_redirect",
        "http://127.0.0.1:33418/callback",
        "http://[::1]/cb",
        "http://localhost:8080/cb",
        "com.example.app:/oauth2redirect",
        "cursor://anysphere.cursor-retrieval/oauth/callback"
      ]
    ) expect(redirectUriProblem(uri), uri).toBeNull()
  })

  it("refuses what would send the code to a browser, a file, another host in clear, or a fragment", () => {
    for (
      const uri of [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "data:text/html,x",
        "file:///etc/passwd",
        "http://connector.example/cb",
        "http://127.0.0.1.evil.example/cb",
        "https://a.example/cb#x",
        "https://user:pw@a.example/cb",
        "vbscript:x",
        "blob:https://a.example/x",
        "not a url",
        `https://a.example/${"x".repeat(600)}`
      ]
    ) expect(redirectUriProblem(uri), uri).not.toBeNull()
  })

  it("a client has a few redirect URIs, not thousands, and at least one", () => {
    expect(redirectUrisProblem([])).toMatch(/empty/)
    expect(redirectUrisProblem(Array.from({ length: 5 }, (_, i) => `https://a.example/${i}`))).toMatch(/more than 4/)
    expect(redirectUrisProblem(["https://a.example/cb", "http://a.example/cb"])).toMatch(/http:\/\/a.example/)
  })
})

describe("pending registrations (signed client_id)", () => {
  const pending = makePendingClients("key-1", 30 * 60_000)
  const made = pending.issue({ name: "Claude", redirectUris: ["https://claude.ai/cb"] }, 1_000_000)

  it("reads back what was registered, until its time is up", () => {
    expect(pending.read(made.clientId, 1_000_000)).toMatchObject({
      name: "Claude",
      redirectUris: ["https://claude.ai/cb"]
    })
    expect(pending.read(made.clientId, 1_000_000 + 30 * 60_000 - 1)).not.toBeNull()
    expect(pending.read(made.clientId, 1_000_000 + 30 * 60_000)).toBeNull()
  })

  it("refuses a client_id another key signed, or one whose redirect URIs were changed", () => {
    expect(makePendingClients("key-2", 30 * 60_000).read(made.clientId, 1_000_000)).toBeNull()
    const [payload, signature] = made.clientId.slice("rc1.".length).split(".")
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as { r: Array<string> }
    claims.r = ["https://evil.example/cb"]
    const forged = `rc1.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`
    expect(pending.read(forged, 1_000_000)).toBeNull()
    expect(pending.read("some-uuid", 1_000_000)).toBeNull()
  })
})

describe("the client's address behind trusted proxies", () => {
  const req = (peer: string, forwarded?: string) =>
    ({
      socket: { remoteAddress: peer },
      headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded }
    }) as unknown as IncomingMessage
  const proxies = trustedProxies(["127.0.0.1", "10.0.0.0/8", "fd00::/8"])

  it("reads X-Forwarded-For only from a trusted proxy, from the right", () => {
    expect(clientAddress(req("203.0.113.9", "198.51.100.1"), proxies)).toBe("203.0.113.9")
    expect(clientAddress(req("127.0.0.1", "198.51.100.1"), proxies)).toBe("198.51.100.1")
    expect(clientAddress(req("::ffff:127.0.0.1", "198.51.100.1"), proxies)).toBe("198.51.100.1")
    // A client's own X-Forwarded-For entry sits left of the one its proxy appended: never reached.
    expect(clientAddress(req("127.0.0.1", "6.6.6.6, 198.51.100.1"), proxies)).toBe("198.51.100.1")
    // Two trusted hops.
    expect(clientAddress(req("127.0.0.1", "198.51.100.1, 10.1.2.3"), proxies)).toBe("198.51.100.1")
    expect(clientAddress(req("127.0.0.1", "garbage"), proxies)).toBe("127.0.0.1")
    expect(clientAddress(req("127.0.0.1"), proxies)).toBe("127.0.0.1")
  })

  it("counts an IPv6 client by its /64; checks the setting's entries", () => {
    expect(addressKey("2001:db8:1:2:3:4:5:6")).toBe(addressKey("2001:db8:1:2:ffff::1"))
    expect(addressKey("2001:db8:1:2::1")).not.toBe(addressKey("2001:db8:1:3::1"))
    expect(addressKey("198.51.100.1")).toBe("198.51.100.1")
    expect(["10.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"].every(isProxyEntry)).toBe(true)
    expect(["proxy.example", "10.0.0.0/33", "10.0.0.1/8/1", ""].some(isProxyEntry)).toBe(false)
  })
})
