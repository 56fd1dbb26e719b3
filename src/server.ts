#!/usr/bin/env node
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger } from "effect"
import { RelayLive } from "./layers/RelayLive.js"
import { serveStdio } from "./mcp/McpServer.js"

/** stdout belongs to the MCP protocol: every log line goes to stderr. */
const StderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

serveStdio.pipe(
  Effect.scoped,
  Effect.provide(RelayLive),
  Effect.provide(StderrLogger),
  Effect.tapErrorCause((cause) => Effect.logError("relay could not start", cause)),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
