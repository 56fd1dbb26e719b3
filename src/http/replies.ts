import { Option } from "effect"
import type { ServerResponse } from "node:http"

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  if (res.headersSent) return
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body))
}

/** A JSON-RPC error for a request that was not (or could not be) read: there is no id to answer. */
export const rpcError = (
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>
) => json(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers)

/**
 * The database could not say whether the token is good (down, failing over, hung) even after the
 * tool calls' retries and inside their time budget. 503 with Retry-After: the request was not read,
 * so there is no JSON-RPC id to answer, and HTTP clients (the SDK's among them) surface a 503 as a
 * failed request that may be sent again. The message is the tool contract's `unavailable`, with
 * nothing of the cause.
 */
export const unavailable = (res: ServerResponse) =>
  json(res, 503, {
    jsonrpc: "2.0",
    error: {
      code: -32000,
      message: "unavailable: Relay cannot reach its database right now; try again shortly",
      data: { code: "unavailable" }
    },
    id: null
  }, { "retry-after": "2" })

/**
 * 401 with the challenge RFC 6750 asks for; `invalid_token` only when a token was presented. With
 * OAuth on, it points at the protected-resource metadata (RFC 9728), where a client's discovery starts.
 */
export const unauthorized = (res: ServerResponse, presented: boolean, resourceMetadata: Option.Option<string>) => {
  const parts = [`realm="relay"`]
  if (Option.isSome(resourceMetadata)) parts.push(`resource_metadata="${resourceMetadata.value}"`)
  if (presented) parts.push(`error="invalid_token"`)
  return rpcError(res, 401, -32001, "a valid bearer token is required", {
    "www-authenticate": `Bearer ${parts.join(", ")}`
  })
}

export const bearer = (header: string | undefined): string | null => {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match === null ? null : match[1]!
}
