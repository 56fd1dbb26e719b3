import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { Clock, Context, Data, Effect, Either, Exit, Runtime, Schedule, Scope } from "effect"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server as NodeServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { Caller } from "../domain/tokens.js"
import { makeWorkspaceStores } from "../layers/WorkspaceStores.js"
import { makeRelayServer, runOn } from "../mcp/mcpHandlers.js"
import { teamGate } from "../mcp/teamGate.js"
import { retryTransient } from "../policies/retry.js"
import { withCallBudget } from "../policies/timeout.js"
import { makeRateLimiter, RateLimiter } from "../services/RateLimiter.js"
import type { SecretScanner } from "../services/SecretScanner.js"
import { Settings } from "../services/Settings.js"
import { TokenStore } from "../services/TokenStore.js"
import { loopbackHosts, readHttpSettings } from "./HttpSettings.js"

class ListenFailed extends Data.TaggedError("ListenFailed")<{ readonly message: string }> {}

interface Session {
  readonly caller: Caller
  readonly transport: StreamableHTTPServerTransport
  readonly close: () => Promise<void>
  lastSeen: number
}

/** A session is a little memory and a connection share; a runaway client may not open without end. */
const maxSessionsPerToken = 32
/** An `initialize` is small; any later message may be as large as the SDK's transport allows. */
const maxInitializeBytes = 64 * 1024
const maxMessageBytes = 4 * 1024 * 1024

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  if (res.headersSent) return
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body))
}

const rpcError = (
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>
) => json(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers)

/**
 * The body as text, or null when it is over `maxBytes`. The rest of an oversized body is read and
 * dropped rather than the socket cut, so the client gets its 413 (memory stays bounded; Node's
 * request timeout bounds a body that never ends).
 */
const readBody = (req: IncomingMessage, maxBytes: number) =>
  new Promise<string | null>((resolve, reject) => {
    let size = 0
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) chunks.push(chunk)
      else chunks.length = 0
    })
    req.on("end", () => resolve(size > maxBytes ? null : Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

/**
 * The database could not say whether the token is good (down, failing over, hung) even after the
 * tool calls' retries and inside their time budget. 503 with Retry-After: the request was not read,
 * so there is no JSON-RPC id to answer, and HTTP clients (the SDK's among them) surface a 503 as a
 * failed request that may be sent again. The message is the tool contract's `unavailable`, with
 * nothing of the cause.
 */
const unavailable = (res: ServerResponse) =>
  json(res, 503, {
    jsonrpc: "2.0",
    error: {
      code: -32000,
      message: "unavailable: Relay cannot reach its database right now; try again shortly",
      data: { code: "unavailable" }
    },
    id: null
  }, { "retry-after": "2" })

const bearer = (header: string | undefined): string | null => {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match === null ? null : match[1]!
}

/**
 * Serves the tools over Streamable HTTP at /mcp until interrupted. Every request passes, in order: the
 * Host and Origin checks (DNS rebinding), a bearer token verified against the admin graph (every request,
 * so a revoked token stops at once), and for an open session the check that it is that token's session.
 * Each session has its own MCP `Server` on a runtime holding its workspace's FactStore and its token's
 * rate limiter; the token's name is the author of everything it writes.
 */
export const serveHttp = Effect.gen(function*() {
  const config = yield* readHttpSettings
  const settings = yield* Settings
  const tokens = yield* TokenStore
  const storeFor = yield* makeWorkspaceStores
  // A token's bucket outlives its sessions: closing and reopening a session must not refill it.
  const limiterFor = yield* Effect.cachedFunction((_tokenId: string) => makeRateLimiter(settings.rateLimitPerMinute))
  const base = yield* Effect.runtime<SecretScanner>()
  const run = Runtime.runPromise(base)
  const sessions = new Map<string, Session>()
  // Under the same policies as a tool call: transient failures (a failover, a dropped connection) are
  // retried, and the whole check answers within the call budget whatever the database does.
  const verify = (presented: string) =>
    tokens.verify(presented).pipe(
      retryTransient,
      withCallBudget,
      Effect.tapError((e) =>
        Effect.logWarning("relay http: token check failed").pipe(
          Effect.annotateLogs({ detail: e._tag === "DatabaseError" ? e.detail : e._tag })
        )
      ),
      Effect.either
    )

  const openSession = (caller: Caller, allowedHosts: Array<string>) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const store = yield* Scope.extend(storeFor(caller.workspace), scope)
      const limiter = yield* limiterFor(caller.tokenId)
      const runtime = Runtime.updateContext(base, (c) => Context.add(Context.merge(c, store), RateLimiter, limiter))
      const server = makeRelayServer(runOn(runtime), teamGate(caller))
      let closing: Promise<void> | undefined
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        enableDnsRebindingProtection: true,
        allowedHosts,
        allowedOrigins: [...config.allowedOrigins],
        onsessioninitialized: (id) => {
          sessions.set(id, session)
        },
        onsessionclosed: () => close()
      })
      const close = () => {
        closing ??= (async () => {
          if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
          await server.close().catch(() => undefined)
          await run(Scope.close(scope, Exit.void))
        })()
        return closing
      }
      const session: Session = { caller, transport, close, lastSeen: yield* Clock.currentTimeMillis }
      transport.onclose = () => void close()
      yield* Effect.promise(() => server.connect(transport))
      return session
    })

  const handle = async (req: IncomingMessage, res: ServerResponse, allowedHosts: Array<string>) => {
    const readJson = async (
      from: IncomingMessage,
      maxBytes: number
    ): Promise<{ body: unknown } | { refused: () => void }> => {
      const text = await readBody(from, maxBytes)
      if (text === null) return { refused: () => rpcError(res, 413, -32000, "request too large") }
      try {
        return { body: JSON.parse(text) as unknown }
      } catch {
        return { refused: () => rpcError(res, 400, -32700, "Parse error") }
      }
    }
    const url = new URL(req.url ?? "/", "http://relay")
    if (url.pathname !== "/mcp") return json(res, 404, { error: "not found: Relay serves MCP at /mcp" })
    // Before the token: a page in a browser must learn nothing, not even whether a token is valid.
    const host = req.headers.host
    const origin = req.headers.origin
    if (host === undefined || !allowedHosts.includes(host)) {
      return rpcError(res, 403, -32000, "Host not allowed (set RELAY_HTTP_ALLOWED_HOSTS for a reverse proxy)")
    }
    if (origin !== undefined && !config.allowedOrigins.includes(origin)) {
      return rpcError(res, 403, -32000, "Origin not allowed (see RELAY_HTTP_ALLOWED_ORIGINS)")
    }
    const presented = bearer(req.headers.authorization)
    const verified = presented === null ? Either.right(null) : await run(verify(presented))
    if (Either.isLeft(verified)) return unavailable(res)
    const caller = verified.right
    if (caller === null) {
      const challenge = presented === null ? `Bearer realm="relay"` : `Bearer realm="relay", error="invalid_token"`
      return rpcError(res, 401, -32001, "a valid bearer token is required", { "www-authenticate": challenge })
    }
    const sessionId = req.headers["mcp-session-id"]
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId)
      // Another token's session is answered exactly as an unknown one: it must not reach that workspace.
      if (session === undefined || session.caller.tokenId !== caller.tokenId) {
        return rpcError(res, 404, -32001, "Session not found")
      }
      session.lastSeen = await run(Clock.currentTimeMillis)
      if (req.method !== "POST") return session.transport.handleRequest(req, res)
      // Read here with Node's own streams and handed over parsed: left to the SDK, the body goes
      // through a Web Request and its stream, the costliest step of a small call (bench/http.ts).
      const message = await readJson(req, maxMessageBytes)
      return "refused" in message ? message.refused() : session.transport.handleRequest(req, res, message.body)
    }
    if (req.method !== "POST") return rpcError(res, 405, -32000, "start a session with a POST of initialize")
    const message = await readJson(req, maxInitializeBytes)
    if ("refused" in message) return message.refused()
    const body = message.body
    if (!isInitializeRequest(body)) {
      return rpcError(res, 400, -32000, "Bad Request: no mcp-session-id; start with initialize")
    }
    const open = [...sessions.values()].filter((s) => s.caller.tokenId === caller.tokenId).length
    if (open >= maxSessionsPerToken) {
      return rpcError(res, 429, -32000, `too many open sessions for this token (at most ${maxSessionsPerToken})`)
    }
    const session = await run(openSession(caller, allowedHosts))
    await session.transport.handleRequest(req, res, body)
    // An initialize the transport refused leaves no session behind.
    if (session.transport.sessionId === undefined || !sessions.has(session.transport.sessionId)) await session.close()
  }

  const server: NodeServer = yield* Effect.acquireRelease(
    Effect.async<NodeServer, ListenFailed>((resume) => {
      let allowedHosts: Array<string> = []
      const made = createServer((req, res) => {
        handle(req, res, allowedHosts).catch((cause: unknown) => {
          // A session that could not be opened (its workspace's store) or a transport that threw.
          void run(Effect.logError("relay http: request failed", cause))
          unavailable(res)
        })
      })
      made.once(
        "error",
        (e: NodeJS.ErrnoException) =>
          resume(
            Effect.fail(
              new ListenFailed({ message: `cannot listen on ${config.host}:${config.port} (${e.code ?? "error"})` })
            )
          )
      )
      made.listen(config.port, config.host, () => {
        const port = (made.address() as AddressInfo).port
        const own = config.host.includes(":") ? `[${config.host}]:${port}` : `${config.host}:${port}`
        allowedHosts = [...new Set([...loopbackHosts(port), own, ...config.extraHosts])]
        resume(Effect.succeed(made))
      })
    }),
    (made) =>
      Effect.promise(async () => {
        const closed = new Promise<void>((resolve) => made.close(() => resolve()))
        await Promise.all([...sessions.values()].map((s) => s.close()))
        made.closeAllConnections()
        await closed
      })
  )
  const address = server.address() as AddressInfo
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address
  yield* Effect.logInfo(`relay MCP server ready on http://${shown}:${address.port}/mcp`)

  // Sessions a client never closed are closed after RELAY_HTTP_SESSION_IDLE_MINUTES without a request.
  const idleMillis = config.sessionIdleMinutes * 60_000
  const sweep = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const idle = [...sessions.values()].filter((s) => now - s.lastSeen > idleMillis)
    yield* Effect.promise(() => Promise.all(idle.map((s) => s.close())))
  })
  yield* Effect.repeat(sweep, Schedule.spaced("1 minute"))
  return yield* Effect.never
})
