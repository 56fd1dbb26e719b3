import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import { quote } from "../domain/quote.js"

/** MCP 2025-11-25's code for a resource that is not there; 2026-07-28 answers -32602 instead. */
export const resourceNotFound2025 = -32002

/** The `data` of each failure thrown as -32002 (in2025Codes). */
const sentAs32002 = new WeakSet<object>()

/**
 * An error the SDK's Protocol sends as the JSON-RPC error of the request that threw it: it reads
 * `code`, `message` and `data` off whatever was thrown. The SDK's own McpError prefixes its message
 * with "MCP error <code>: ", which the code field already says. It stays a JS Error, not a
 * Schema.TaggedError: it leaves Effect as a thrown exception, and the SDK's handler is what catches it.
 */
export class RpcFailure extends Error {
  constructor(readonly code: number, message: string, readonly data?: Record<string, unknown>) {
    super(message)
    if (code === resourceNotFound2025 && data !== undefined) sentAs32002.add(data)
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

/**
 * A message as a 2025 client is sent it. The v2 SDK writes 2026's -32602 for a resource not found
 * in both generations; the 2025 spec (and Relay's contract for 2025 clients) says -32002. The SDK
 * sends the thrown failure's `data` object itself, so that object says which errors were -32002.
 */
export const in2025Codes = <M>(message: M): M => {
  const error = (message as { readonly error?: { readonly code?: unknown; readonly data?: unknown } }).error
  const data = error?.data
  if (error?.code !== -32602 || typeof data !== "object" || data === null || !sentAs32002.has(data)) return message
  return { ...message, error: { ...error, code: resourceNotFound2025 } }
}
