import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import { quote } from "../domain/quote.js"

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

/** A name as sent that can be shown as it is: what a field, tool or prompt of this server is called. */
const plainName = /^[A-Za-z0-9_.:/-]{1,64}$/

/** A name the caller sent as a JSON string literal, escaped as domain/quote.ts escapes fact text, at most 64 characters of it. */
export const quoteName = (name: string): string => quote([...name].slice(0, 64).join(""))

/**
 * A name the caller sent (an unknown field or argument) as an error may show it: a plain one as it
 * is, any other quoted with every line break, bidi override and invisible character escaped. Shown
 * raw, a newline in a field name started a line of its own in the reply and a U+202E reversed the
 * rest of it.
 */
export const echoName = (name: string): string => plainName.test(name) ? name : quoteName(name)
