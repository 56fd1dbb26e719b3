import { ErrorCode, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js"
import { serveStdio as serveBothGenerations, StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import { Deferred, Effect, FiberSet, Runtime } from "effect"
import { BoundedLines, maxRequestBytes, type Unreadable } from "./boundedLines.js"
import { failure, internalMessage, type ToolResult } from "./callTool.js"
import { maxNesting } from "./jsonShape.js"
import { type CallRunner, makeRelayServer, type ToolServices } from "./mcpHandlers.js"
import { structuredContentSetting } from "./replyForm.js"
import { in2025Codes } from "./rpcErrors.js"

export { serverInfo } from "./mcpHandlers.js"

const tooLarge = `the request is larger than ${maxRequestBytes / 1024 / 1024} MiB, Relay's limit for one message`
const notAMessage = "Invalid Request: not a JSON-RPC 2.0 message"
const refusals: Record<
  Unreadable,
  { readonly code: number; readonly message: string; readonly data?: Record<string, unknown> }
> = {
  // The contract's code, as an unknown tool's -32602 carries it: the input is what is wrong.
  too_deep: {
    code: ErrorCode.InvalidRequest,
    message: `invalid_input: the message nests arrays and objects more than ${maxNesting} deep`,
    data: { code: "invalid_input" }
  },
  not_json: { code: ErrorCode.ParseError, message: "Parse error" },
  not_a_message: { code: ErrorCode.InvalidRequest, message: notAMessage }
}

/** The SDK's stdio transport, sending a 2025 connection's answers in 2025's codes (rpcErrors.ts). */
class GenerationStdioTransport extends StdioServerTransport {
  legacy = false
  override send(message: Parameters<StdioServerTransport["send"]>[0]) {
    return super.send(this.legacy ? in2025Codes(message) : message)
  }
}

/**
 * Serves the tools over stdio until the client goes away, to a 2026-07-28 client (its first
 * message carries the version in `_meta`, often a `server/discover`) and to a 2025 one (its first
 * message is `initialize`) alike: the v2 SDK's serveStdio picks the generation from the first
 * message and builds the one server of the connection for it. stdout carries MCP messages only;
 * everything else is logged to stderr.
 */
export const serveStdio = Effect.gen(function*() {
  const runtime = yield* Effect.runtime<ToolServices>()
  // Calls run in a set that closes with this scope: a call still running when the client goes away
  // is interrupted, rather than retried against a database connection that is being shut down.
  const runCall = yield* FiberSet.makeRuntimePromise<ToolServices>()
  // callTool maps every failure itself; a call that still fails was interrupted at shutdown.
  const run: CallRunner = (program) => runCall(program).catch((): ToolResult => failure("internal", internalMessage))
  const closed = yield* Deferred.make<void>()
  const form = { json: yield* structuredContentSetting }

  const finish = () => Runtime.runSync(runtime)(Deferred.succeed(closed, undefined))
  // Not a server's onclose: the server a `server/discover` probe made is closed when a 2025 client
  // falls back to initialize, and the connection goes on. Nor the transport's alone: it notices
  // neither the client closing stdin nor a client gone (stdout fails with EPIPE).
  process.stdin.once("end", finish)
  process.stdout.on("error", finish)

  const lines = new BoundedLines(maxRequestBytes, (id, bytes) => refuse(id, bytes), (id, why) => unreadable(id, why))
  const transport = new GenerationStdioTransport(lines, process.stdout, { maxBufferSize: maxRequestBytes + 2 })
  /**
   * An error for a line that was not read, with `id: null` where no id could be found (JSON-RPC's
   * rule). The SDK's message types have no null id, hence the cast; the wire form is what counts.
   */
  const sendError = (id: RequestId | undefined, code: number, message: string, data?: Record<string, unknown>) =>
    transport.send(
      { jsonrpc: "2.0", id: id ?? null, error: { code, message, ...(data && { data }) } } as unknown as JSONRPCMessage
    ).catch(() => undefined)
  // The SDK's transport hands a line it cannot read to onerror and answers nothing, so the client
  // would wait for its request forever: a line that is not JSON is a parse error (-32700), JSON that
  // is no JSON-RPC message an invalid request (-32600). Other errors are only logged.
  const onerror = (error: Error) => {
    const refusal = error.name === "SyntaxError"
      ? [ErrorCode.ParseError, "Parse error"] as const
      : error.name === "ZodError"
      ? [ErrorCode.InvalidRequest, notAMessage] as const
      : undefined
    Runtime.runFork(runtime)(
      refusal === undefined
        ? Effect.logWarning("relay stdio: transport error").pipe(Effect.annotateLogs({ error: error.name }))
        : Effect.logInfo(`refused an unreadable request line (${refusal[0]})`).pipe(
          Effect.zipRight(Effect.promise(() => sendError(undefined, refusal[0], refusal[1])))
        )
    )
  }
  /** A JSON-RPC error for the line too long to read; with no id found, `id: null`. */
  const refuse = (id: RequestId | undefined, bytes: number) =>
    Runtime.runFork(runtime)(
      Effect.logWarning("refused a request line over the size limit").pipe(
        Effect.annotateLogs({ bytes, id: id === undefined ? "unknown" : "known" }),
        Effect.zipRight(Effect.promise(() => sendError(id, ErrorCode.InvalidRequest, tooLarge)))
      )
    )

  /** A whole line refused before the SDK reads it (boundedLines.ts: too deep, or no JSON-RPC message), answered with its id. */
  const unreadable = (id: RequestId | undefined, why: Unreadable) =>
    Runtime.runFork(runtime)(
      Effect.logInfo(`refused an unreadable request line (${why})`).pipe(
        Effect.annotateLogs({ id: id === undefined ? "unknown" : "known" }),
        Effect.zipRight(
          Effect.promise(() => sendError(id, refusals[why].code, refusals[why].message, refusals[why].data))
        )
      )
    )

  yield* Effect.acquireRelease(
    Effect.sync(() => {
      process.stdin.pipe(lines)
      // The connection's server is made last, for the generation its first message chose (a
      // discover probe's is made and dropped before a 2025 client's falls back to initialize).
      const server = ({ era }: { readonly era: "legacy" | "modern" }) => {
        transport.legacy = era === "legacy"
        return makeRelayServer(run, undefined, form)
      }
      return serveBothGenerations(server, { transport, onerror })
    }),
    (handle) =>
      Effect.promise(() => handle.close().catch(() => undefined)).pipe(
        Effect.zipRight(Effect.sync(() => process.stdin.unpipe(lines)))
      )
  )
  yield* Effect.logInfo("relay MCP server ready on stdio")
  yield* Deferred.await(closed)
})
