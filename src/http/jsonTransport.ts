// Not the SDK's Streamable HTTP transport: it accepts a request id still in use (test/team/requestIds.test.ts).
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  isInitializeRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS
} from "@modelcontextprotocol/sdk/types.js"
import { randomUUID } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { in2025Codes } from "../mcp/rpcErrors.js"
import { rpcError } from "./replies.js"

/** As the SDK's transport: a batch is at most this many messages. */
const maxBatch = 100

/** One POST's requests, answered together once each has its response. */
interface Exchange {
  readonly res: ServerResponse
  readonly ids: ReadonlyArray<RequestId>
  readonly answers: Map<RequestId, JSONRPCMessage>
  /** Requests the client cancelled: the server answers none of them (MCP's cancellation). */
  readonly cancelled: Set<RequestId>
  readonly batch: boolean
}

const isJsonMediaType = (value: string | undefined) =>
  value !== undefined && value.split(";", 1)[0]!.trim().toLowerCase() === "application/json"

/**
 * One session's Streamable HTTP transport on Node's own request and response, answering every POST
 * with plain JSON (the SDK's `enableJsonResponse` mode) and offering no GET stream (405, which the
 * spec allows: Relay sends nothing unasked). The checks the SDK's StreamableHTTPServerTransport makes
 * on a request are kept here, with its status codes and messages, plus what it lacks: a request id
 * stays taken in its session until answered or cancelled (test/team/requestIds.test.ts).
 * Kept over the SDK's transport (enableJsonResponse) by bench/http.ts: "lean - stdio" p50 per transport.
 */
export class JsonHttpTransport implements Transport {
  sessionId?: string
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: Transport["onmessage"]
  private readonly exchanges = new Map<RequestId, Exchange>()
  private closed = false

  constructor(private readonly options: { readonly onsessioninitialized: (id: string) => void }) {}

  start() {
    return Promise.resolve()
  }

  close() {
    if (this.closed) return Promise.resolve()
    this.closed = true
    for (const exchange of new Set(this.exchanges.values())) {
      rpcError(exchange.res, 404, -32001, "Session not found")
    }
    this.exchanges.clear()
    this.onclose?.()
    return Promise.resolve()
  }

  /**
   * A response goes back on the POST that asked; anything else has nowhere to go and is dropped. The
   * server made the message, so its shape is known: a response is what has a result or an error.
   */
  send(message: JSONRPCMessage) {
    if (!("result" in message) && !("error" in message)) return Promise.resolve()
    const id = message.id
    const exchange = id === undefined ? undefined : this.exchanges.get(id)
    if (id === undefined || exchange === undefined) return Promise.resolve()
    // A session is a 2025 client's: its answers in 2025's codes.
    exchange.answers.set(id, in2025Codes(message))
    this.settle(exchange)
    return Promise.resolve()
  }

  /**
   * Once each request of a POST is answered or cancelled, its ids are free and the answers go back
   * (nothing is written to a client that hung up; a POST whose requests were all cancelled gets 202).
   */
  private settle(exchange: Exchange) {
    if (!exchange.ids.every((id) => exchange.answers.has(id) || exchange.cancelled.has(id))) return
    for (const id of exchange.ids) this.exchanges.delete(id)
    const answers = exchange.ids.flatMap((id) => exchange.answers.get(id) ?? [])
    if (exchange.res.writableEnded || exchange.res.destroyed) return
    if (answers.length === 0) return void exchange.res.writeHead(202).end()
    const headers: Record<string, string> = { "content-type": "application/json" }
    if (this.sessionId !== undefined) headers["mcp-session-id"] = this.sessionId
    exchange.res.writeHead(200, headers).end(JSON.stringify(exchange.batch ? answers : answers[0]))
  }

  /**
   * A request the server cancels is never answered: its POST must not wait for it, nor its id stay
   * taken. The server (the SDK's Protocol) cancels only a request it has received, and ignores a
   * cancellation whose requestId is 0 or empty (and then answers): so does this.
   */
  private cancel(message: JSONRPCMessage) {
    if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message) return
    const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId
    if (requestId === undefined || requestId === 0 || requestId === "") return
    const exchange = this.exchanges.get(requestId)
    if (exchange === undefined || exchange.answers.has(requestId)) return
    exchange.cancelled.add(requestId)
    this.settle(exchange)
  }

  /** Serves one HTTP request of this session; a POST's body comes parsed. */
  handle(req: IncomingMessage, res: ServerResponse, body?: unknown) {
    if (this.closed) return rpcError(res, 404, -32001, "Session not found")
    if (req.method === "POST") return this.post(req, res, body)
    if (req.method === "DELETE") {
      if (this.refusedVersion(req, res)) return
      res.writeHead(200).end()
      // Closing the transport closes its session (through onclose).
      return void this.close()
    }
    return rpcError(res, 405, -32000, "Method not allowed: this server offers no SSE stream", {
      allow: "POST, DELETE"
    })
  }

  private refuse(res: ServerResponse, status: number, code: number, message: string) {
    this.onerror?.(new Error(message))
    rpcError(res, status, code, message)
  }

  /**
   * True (and answered) when the request names a protocol version this transport does not speak.
   * That it is this session's request, with its id, serveHttp made sure before handing it here.
   */
  private refusedVersion(req: IncomingMessage, res: ServerResponse) {
    const version = req.headers["mcp-protocol-version"]
    if (typeof version === "string" && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      this.refuse(
        res,
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${
          SUPPORTED_PROTOCOL_VERSIONS.join(", ")
        })`
      )
      return true
    }
    return false
  }

  private post(req: IncomingMessage, res: ServerResponse, body: unknown) {
    const accept = req.headers.accept ?? ""
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return this.refuse(
        res,
        406,
        -32000,
        "Not Acceptable: Client must accept both application/json and text/event-stream"
      )
    }
    if (!isJsonMediaType(req.headers["content-type"])) {
      return this.refuse(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json")
    }
    const batch = Array.isArray(body)
    const raw: Array<unknown> = batch ? body : [body]
    if (raw.length > maxBatch) {
      return this.refuse(res, 400, -32600, `Invalid Request: Batch must not exceed ${maxBatch} messages`)
    }
    if (raw.length === 0) return this.refuse(res, 400, -32600, "Invalid Request: empty batch")
    const messages: Array<JSONRPCMessage> = []
    for (const m of raw) {
      const parsed = JSONRPCMessageSchema.safeParse(m)
      if (!parsed.success) return this.refuse(res, 400, -32700, "Parse error: Invalid JSON-RPC message")
      messages.push(parsed.data)
    }
    // Checked against the message schemas above: a message with an id and a method is a request.
    const ids = messages.flatMap((m) => "id" in m && "method" in m ? [m.id] : [])
    // Answers are matched to their POST by id: an id twice in flight in one session would leave a
    // POST never answered (its batch waits for an answer per id) or answer the wrong one.
    if (new Set(ids).size < ids.length || ids.some((id) => this.exchanges.has(id))) {
      return this.refuse(res, 400, -32600, "Invalid Request: a request id already in use in this session")
    }
    if (messages.some(isInitializeRequest)) {
      // serveHttp opens a session only for a lone initialize, so one here comes on an open session.
      if (this.sessionId !== undefined) {
        return this.refuse(res, 400, -32600, "Invalid Request: Server already initialized")
      }
      this.sessionId = randomUUID()
      this.options.onsessioninitialized(this.sessionId)
    } else if (this.refusedVersion(req, res)) {
      return
    }
    const extra = { requestInfo: { headers: req.headers } }
    if (ids.length === 0) res.writeHead(202).end()
    const exchange: Exchange = { res, ids, answers: new Map(), cancelled: new Set(), batch }
    for (const message of messages) {
      // An id is taken as its request reaches the server, so a cancellation earlier in the same
      // batch finds nothing, as the server's own does. It stays taken until the request is answered
      // or cancelled, even when the client hangs up first (send then writes nothing): were it freed
      // at the hang-up, a new request reusing it would be answered with the old one's late answer.
      if ("id" in message && "method" in message) this.exchanges.set(message.id, exchange)
      this.onmessage?.(message, extra)
      this.cancel(message)
    }
  }
}
