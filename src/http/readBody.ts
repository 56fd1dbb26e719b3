import type { IncomingMessage, ServerResponse } from "node:http"
import { maxNesting, nestsAtMost } from "../mcp/jsonShape.js"
import { rpcError } from "./replies.js"

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
 * The body parsed as JSON, or a refusal to send (413, 400 for nesting too deep, or 400 Parse
 * error). Read here with Node's own streams: left to the SDK, the body goes through a Web Request
 * and its stream, the costliest step of a small call (bench/http.ts).
 */
export const readJson = async (
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number
): Promise<{ readonly body: unknown } | { readonly refused: () => void }> => {
  const text = await readBody(req, maxBytes)
  if (text === null) return { refused: () => rpcError(res, 413, -32000, "request too large") }
  if (!nestsAtMost(text, maxNesting)) {
    return { refused: () => rpcError(res, 400, -32600, `Invalid Request: nested more than ${maxNesting} deep`) }
  }
  try {
    return { body: JSON.parse(text) as unknown }
  } catch {
    return { refused: () => rpcError(res, 400, -32700, "Parse error") }
  }
}
