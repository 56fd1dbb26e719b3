import { createMcpHandler, PROTOCOL_VERSION_META_KEY, type Server } from "@modelcontextprotocol/server"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Readable } from "node:stream"
import type { Caller } from "../domain/tokens.js"
import { json } from "./replies.js"

/**
 * The versions of 2025 and before: a request whose MCP-Protocol-Version header names another is a
 * 2026-07-28 one (the header travels on every request of that generation over HTTP).
 */
const modernHeader = (req: IncomingMessage) => {
  const version = req.headers["mcp-protocol-version"]
  return typeof version === "string" && version >= "2026"
}

/** A message whose `params._meta` names a protocol version: the 2026 envelope's claim. */
const claimsVersion = (message: unknown) => {
  const params = (message as { readonly params?: unknown } | null)?.params
  const meta = (params as { readonly _meta?: unknown } | null | undefined)?._meta
  return typeof meta === "object" && meta !== null && PROTOCOL_VERSION_META_KEY in meta
}

/** What serveHttp hands a 2026 request: the server built for its caller, and its release once answered. */
export interface RequestServer {
  readonly server: Server
  readonly release: () => Promise<void>
}

/**
 * The headers the SDK's handler reads of a 2026 request whose body it is handed parsed: the media
 * type and the three it checks against the body. The bearer, Host and Origin were checked before;
 * copying every header into the Web Request was most of what building it cost.
 */
const readHeaders = ["content-type", "mcp-protocol-version", "mcp-method", "mcp-name"] as const

const webHeaders = (req: IncomingMessage) => {
  const headers = new Headers()
  for (const name of readHeaders) {
    const value = req.headers[name]
    if (typeof value === "string") headers.set(name, value)
  }
  return headers
}

/**
 * MCP 2026-07-28 over Streamable HTTP, beside the 2025 sessions of sessions.ts: no session and no
 * handshake, each request carries its version and capabilities in `_meta`, and is answered by a
 * server built for it (its caller's workspace and rate limit) and let go with its answer. Nothing of
 * a request is kept in this process after it is answered, so any Relay behind a load balancer answers
 * any of them. The SDK's handler checks the envelope, the `Mcp-Method` and `Mcp-Name` headers
 * against the body, answers `server/discover`, and writes the 2026 result shapes (`resultType`,
 * `ttlMs`, `cacheScope`); the Host, Origin, bearer and connection checks ran before (serveHttp).
 */
export const makeModernRequests = (onerror: (error: Error) => void) => {
  const handler = createMcpHandler(
    (ctx) => (ctx.authInfo?.extra?.["relay"] as RequestServer).server,
    // 2025 traffic never reaches this handler: serveHttp sends it to its sessions.
    { legacy: "reject", responseMode: "json", onerror }
  )

  /** Whether the body is read up to the larger limit of a call rather than an initialize's. */
  const claimsModern = modernHeader

  /**
   * A 2026 request (true), or one for the 2025 path: no 2026 header and no message claiming a
   * version in its `_meta` (the SDK's isLegacyRequest, without the Web Request it builds to ask).
   * The SDK's handler then checks a claimed request whole, and refuses a malformed one itself.
   */
  const isModern = (req: IncomingMessage, body: unknown) =>
    claimsModern(req) || (Array.isArray(body) ? body : [body]).some(claimsVersion)

  const requestOf = (req: IncomingMessage, signal?: AbortSignal) =>
    new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/mcp"}`, {
      method: req.method ?? "POST",
      headers: webHeaders(req),
      ...(signal !== undefined && { signal })
    })

  /** Answers one 2026 request on `relay`, the server built for its caller. */
  const serve = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    caller: Caller,
    relay: RequestServer
  ) => {
    const listen = body as { readonly method?: unknown; readonly id?: unknown } | null
    if (listen?.method === "subscriptions/listen") {
      // Relay announces no changes (docs/protocol.md): a stream held open for nothing would only
      // take one of the token's connections.
      await relay.release()
      return json(res, 200, {
        jsonrpc: "2.0",
        id: listen.id ?? null,
        error: { code: -32601, message: "Method not found: Relay announces no changes; see docs/protocol.md" }
      })
    }
    // A client that hangs up cancels its request, as the end of a 2025 request's POST does not. An
    // answered one is not aborted: that would only build an error nobody reads.
    const hangUp = new AbortController()
    res.once("close", () => {
      if (!res.writableFinished) hangUp.abort()
    })
    try {
      const response = await handler.fetch(requestOf(req, hangUp.signal), {
        parsedBody: body,
        authInfo: { token: caller.tokenId, clientId: caller.name, scopes: [], extra: { relay } }
      })
      const headers: Record<string, string> = {}
      response.headers.forEach((value, name) => {
        headers[name] = value
      })
      res.writeHead(response.status, headers)
      if (response.body === null) return void res.end()
      if (headers["content-type"]?.startsWith("text/event-stream") === true) {
        // Readable.fromWeb's parameter is node:stream/web's type, which the DOM's ReadableStream is at run time.
        return void Readable.fromWeb(response.body as never).pipe(res)
      }
      res.end(Buffer.from(await response.arrayBuffer()))
    } finally {
      await relay.release()
    }
  }

  return { claimsModern, isModern, serve, close: () => handler.close() }
}
