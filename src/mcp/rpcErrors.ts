import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"

/**
 * An error the SDK's Protocol sends as the JSON-RPC error of the request that threw it: it reads
 * `code`, `message` and `data` off whatever was thrown. The SDK's own McpError prefixes its message
 * with "MCP error <code>: ", which the code field already says. It stays a JS Error, not a
 * Schema.TaggedError: it leaves Effect as a thrown exception, and the SDK's handler is what catches it.
 */
export class RpcFailure extends Error {
  constructor(readonly code: number, message: string, readonly data?: Record<string, unknown>) {
    super(message)
  }
}

/** A parameter of a protocol request that names nothing this server has: JSON-RPC's invalid params. */
export const invalidParams = (message: string, data?: Record<string, unknown>) =>
  new RpcFailure(ErrorCode.InvalidParams, message, data)

/**
 * Every MCP list here (tools, prompts, resources, templates) is a single page, so no cursor is one
 * this server gave: a client that sends one gets -32602, as the spec asks for an invalid cursor.
 * The tools' own cursors are another matter: a bad one is a tool result, `invalid_input`.
 */
export const refuseListCursor = (params: { readonly cursor?: string | undefined } | undefined) => {
  if (params?.cursor !== undefined) {
    throw invalidParams("Invalid params: cursor: not one this server gave (its lists are one page each)")
  }
}
