import { lookup } from "node:dns/promises"
import { type IncomingMessage, request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { BlockList, isIP, type LookupFunction } from "node:net"
import type { OAuthClient } from "../../services/OAuthStore.js"
import { redirectUrisProblem } from "./redirectUris.js"

/** A client metadata document is small; more is not one. */
const maxBytes = 5 * 1024
const timeoutMillis = 5000
/** Documents kept at most; past it the oldest is dropped. */
const capacity = 1000
/** How long a document is kept when its answer says nothing (Cache-Control), and at most. */
const defaultTtlMillis = 5 * 60_000
const maxTtlMillis = 24 * 60 * 60_000

/** Addresses no public document lives at: loopback, private, carrier-grade NAT, link-local, ULA, multicast, reserved. */
const nonPublic = new BlockList()
for (
  const [net, bits] of [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4]
  ] as const
) nonPublic.addSubnet(net, bits, "ipv4")
for (
  const [net, bits] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8], [
    "64:ff9b::",
    96
  ]] as const
) nonPublic.addSubnet(net, bits, "ipv6")

const isPublic = (address: string) => {
  const mapped = address.toLowerCase().startsWith("::ffff:") ? address.slice(7) : address
  const family = isIP(mapped)
  return family !== 0 && !nonPublic.check(mapped, family === 6 ? "ipv6" : "ipv4")
}

/** Whether a client_id names a metadata document (CIMD): an https URL with a path (http only for an allowed host). */
export const isDocumentClientId = (clientId: string, allowedHosts: ReadonlyArray<string>) => {
  if (!URL.canParse(clientId)) return false
  const u = new URL(clientId)
  const scheme = u.protocol === "https:" || (u.protocol === "http:" && allowedHosts.includes(u.host))
  return scheme && u.pathname !== "/" && u.hash === "" && u.username === "" && u.password === "" &&
    !/\/\.\.?(\/|$)/.test(u.pathname)
}

class Refused extends Error {}

const readCapped = (res: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let body = ""
    res.setEncoding("utf8")
    res.on("data", (chunk: string) => {
      body += chunk
      if (body.length > maxBytes) {
        res.destroy()
        reject(new Refused("the document is too large"))
      }
    })
    res.on("end", () => resolve(body))
    res.on("error", reject)
  })

/** How long the answer may be kept (Cache-Control max-age, no-store, no-cache), within the cap. */
const ttlOf = (res: IncomingMessage) => {
  const cc = (res.headers["cache-control"] ?? "").toLowerCase()
  if (/\b(no-store|no-cache)\b/.test(cc)) return 0
  const maxAge = /\bmax-age=(\d+)/.exec(cc)
  return maxAge === null ? defaultTtlMillis : Math.min(maxTtlMillis, Number(maxAge[1]) * 1000)
}

/**
 * Client ID Metadata Documents (MCP authorization 2025-11-25, draft-ietf-oauth-client-id-metadata-document):
 * a client_id that is an https URL is fetched, and the JSON document there is the client: its name,
 * its redirect URIs (only these), its auth method ("none"). Fetching a URL a stranger chose is a
 * server-side request forgery risk, so: the host's addresses are resolved first and every one must be
 * public (no loopback, private, link-local or ULA address), unless the host is in `allowedHosts`
 * (RELAY_OAUTH_CLIENT_DOCUMENT_HOSTS, for tests and private deployments); the connection goes to the
 * address that was checked (no second lookup to rebind); no redirect is followed; the answer is
 * capped in size and time; and the document's own `client_id` must be its URL. An answer is kept as
 * its Cache-Control allows (5 minutes when it says nothing, a day at most).
 */
export const makeClientDocuments = (options: {
  readonly allowedHosts: ReadonlyArray<string>
  readonly now: () => Promise<number>
}) => {
  const cache = new Map<string, { readonly client: OAuthClient & { readonly host: string }; readonly until: number }>()

  const fetchOnce = async (url: URL) => {
    const allowed = options.allowedHosts.includes(url.host)
    const host = url.hostname.replace(/^\[|\]$/g, "")
    const addresses = isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true })
    if (addresses.length === 0) throw new Refused("the host has no address")
    if (!allowed && !addresses.every((a) => isPublic(a.address))) throw new Refused("the host is not public")
    const pinned = addresses[0]!
    const pin: LookupFunction = (_name, opts, callback) =>
      opts.all === true
        ? (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [pinned])
        : callback(null, pinned.address, pinned.family)
    const request = url.protocol === "https:" ? httpsRequest : httpRequest
    return new Promise<{ body: string; ttl: number }>((resolve, reject) => {
      const req = request(url, {
        method: "GET",
        headers: { accept: "application/json" },
        lookup: pin,
        timeout: timeoutMillis,
        signal: AbortSignal.timeout(timeoutMillis)
      }, (res) => {
        // A redirect is not followed: the document is at its URL or nowhere.
        if (res.statusCode !== 200) {
          res.resume()
          return reject(new Refused(`the document answered ${res.statusCode}`))
        }
        readCapped(res).then((body) => resolve({ body, ttl: ttlOf(res) }), reject)
      })
      req.on("timeout", () => req.destroy(new Refused("the document took too long")))
      req.on("error", reject)
      req.end()
    })
  }

  const parse = (clientId: string, url: URL, body: string) => {
    const doc = JSON.parse(body) as Record<string, unknown>
    if (doc.client_id !== clientId) throw new Refused("the document's client_id is not its URL")
    const uris = doc.redirect_uris
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === "string")) throw new Refused("no redirect_uris")
    if (redirectUrisProblem(uris as Array<string>) !== null) throw new Refused("a redirect URI is refused")
    const method = doc.token_endpoint_auth_method
    if (method !== undefined && method !== "none") throw new Refused("only public clients (none)")
    const name = typeof doc.client_name === "string" && doc.client_name.trim() !== ""
      ? doc.client_name.slice(0, 100)
      : url.host
    return { name, redirectUris: uris as Array<string> }
  }

  return {
    /** The client a document URL stands for, or null when it cannot be fetched or is not a valid document. */
    read: async (clientId: string): Promise<(OAuthClient & { readonly host: string }) | null> => {
      if (!isDocumentClientId(clientId, options.allowedHosts)) return null
      const now = await options.now()
      const kept = cache.get(clientId)
      if (kept !== undefined && kept.until > now) return kept.client
      cache.delete(clientId)
      const url = new URL(clientId)
      try {
        const { body, ttl } = await fetchOnce(url)
        const doc = parse(clientId, url, body)
        const client = { clientId, name: doc.name, redirectUris: doc.redirectUris, issuedAt: now, host: url.host }
        if (ttl > 0) {
          if (cache.size >= capacity) cache.delete(cache.keys().next().value!)
          cache.set(clientId, { client, until: now + ttl })
        }
        return client
      } catch {
        return null
      }
    }
  }
}

export type ClientDocuments = ReturnType<typeof makeClientDocuments>
