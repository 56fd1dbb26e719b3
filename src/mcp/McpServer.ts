import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { Deferred, Effect, Runtime } from "effect"
import { makeRelayServer, type ToolServices } from "./mcpHandlers.js"

export { serverInfo } from "./mcpHandlers.js"

/**
 * Serves the nine tools over stdio until the client goes away. stdout carries MCP messages only;
 * everything else is logged to stderr.
 */
export const serveStdio = Effect.gen(function*() {
  const runtime = yield* Effect.runtime<ToolServices>()
  const closed = yield* Deferred.make<void>()
  const server = makeRelayServer(runtime)

  const finish = () => Runtime.runSync(runtime)(Deferred.succeed(closed, undefined))
  server.onclose = finish
  // The SDK's transport does not notice the client closing stdin; a server left behind would linger.
  process.stdin.once("end", finish)

  yield* Effect.acquireRelease(
    Effect.promise(() => server.connect(new StdioServerTransport())),
    () => Effect.promise(() => server.close().catch(() => undefined))
  )
  yield* Effect.logInfo("relay MCP server ready on stdio")
  yield* Deferred.await(closed)
})
