import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { ErrorCode, type RequestId } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect, FiberSet, Runtime } from "effect"
import { BoundedLines, maxRequestBytes } from "./boundedLines.js"
import { failure, internalMessage, type ToolResult } from "./callTool.js"
import { type CallRunner, makeRelayServer, type ToolServices } from "./mcpHandlers.js"
import { structuredContentSetting } from "./replyForm.js"

export { serverInfo } from "./mcpHandlers.js"

const tooLarge = `the request is larger than ${maxRequestBytes / 1024 / 1024} MiB, Relay's limit for one message`

/**
 * Serves the tools over stdio until the client goes away. stdout carries MCP messages only;
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
  const server = makeRelayServer(run, undefined, { structured: yield* structuredContentSetting })

  const finish = () => Runtime.runSync(runtime)(Deferred.succeed(closed, undefined))
  server.onclose = finish
  // The SDK's transport notices neither the client closing stdin nor a client gone altogether
  // (stdout fails with EPIPE); a server left behind would linger.
  process.stdin.once("end", finish)
  process.stdout.on("error", finish)

  const lines = new BoundedLines(maxRequestBytes, (id, bytes) => refuse(id, bytes))
  const transport = new StdioServerTransport(lines, process.stdout, { maxBufferSize: maxRequestBytes + 2 })
  /** A JSON-RPC error for the line too long to read; with no id found, one without an id, as JSON-RPC says. */
  const refuse = (id: RequestId | undefined, bytes: number) =>
    Runtime.runFork(runtime)(
      Effect.logWarning("refused a request line over the size limit").pipe(
        Effect.annotateLogs({ bytes, id: id === undefined ? "unknown" : "known" }),
        Effect.zipRight(Effect.promise(() =>
          transport.send({
            jsonrpc: "2.0",
            ...(id === undefined ? {} : { id }),
            error: { code: ErrorCode.InvalidRequest, message: tooLarge }
          }).catch(() => undefined)
        ))
      )
    )

  yield* Effect.acquireRelease(
    Effect.promise(() => {
      process.stdin.pipe(lines)
      return server.connect(transport)
    }),
    () =>
      Effect.promise(() => server.close().catch(() => undefined)).pipe(
        Effect.zipRight(Effect.sync(() => process.stdin.unpipe(lines)))
      )
  )
  yield* Effect.logInfo("relay MCP server ready on stdio")
  yield* Deferred.await(closed)
})
