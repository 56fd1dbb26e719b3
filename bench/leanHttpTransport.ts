import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import { Agent, request } from "node:http"

/**
 * A Streamable HTTP client transport for servers that answer in plain JSON (Relay does: no event
 * stream), on Node's `http` with one kept-alive connection, for the SDK's own Client. It sends what
 * the SDK's StreamableHTTPClientTransport sends (the JSON-RPC body, `Accept`, the bearer token,
 * `mcp-session-id` and `mcp-protocol-version` once known) and reads a reply the same way, without
 * the Web Headers, Request and Response the SDK's transport builds around every call. It is stdio's
 * like on the client side: what bench/http.ts then measures between the two is the server's share.
 */
export class LeanHttpTransport implements Transport {
  sessionId?: string
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: Transport["onmessage"]
  private protocolVersion?: string
  private readonly agent: Agent

  /**
   * `sockets`: kept-alive connections at most. Node's Agent sends one request at a time on a socket
   * (no HTTP/1.1 pipelining), so with one socket concurrent calls of the Client go one after another,
   * as no real client's do (the SDK's transport on fetch opens a connection per concurrent request):
   * a benchmark of concurrent callers gives as many as it has callers.
   */
  constructor(private readonly url: URL, private readonly token: string, sockets = 1) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets })
  }

  start() {
    return Promise.resolve()
  }

  setProtocolVersion(version: string) {
    this.protocolVersion = version
  }

  private exchange(method: "POST" | "DELETE", body?: string) {
    const headers: Record<string, string> = {
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${this.token}`
    }
    if (body !== undefined) headers["content-type"] = "application/json"
    if (this.sessionId !== undefined) headers["mcp-session-id"] = this.sessionId
    if (this.protocolVersion !== undefined) headers["mcp-protocol-version"] = this.protocolVersion
    return new Promise<{ status: number; session: string | undefined; text: string }>((resolve, reject) => {
      const req = request(this.url, { method, headers, agent: this.agent }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("error", reject)
        res.on("end", () => {
          const session = res.headers["mcp-session-id"]
          resolve({
            status: res.statusCode ?? 500,
            session: typeof session === "string" ? session : undefined,
            text: Buffer.concat(chunks).toString("utf8")
          })
        })
      })
      req.on("error", reject)
      req.end(body)
    })
  }

  async send(message: JSONRPCMessage) {
    const reply = await this.exchange("POST", JSON.stringify(message))
    if (reply.session !== undefined) this.sessionId = reply.session
    if (reply.status === 202) return
    if (reply.status !== 200) throw new Error(`HTTP ${reply.status}: ${reply.text.slice(0, 200)}`)
    const parsed: unknown = JSON.parse(reply.text)
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) this.onmessage?.(JSONRPCMessageSchema.parse(m))
  }

  async close() {
    if (this.sessionId !== undefined) await this.exchange("DELETE").catch(() => undefined)
    this.agent.destroy()
    this.onclose?.()
  }
}
