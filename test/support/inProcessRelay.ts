import { Client, type ClientOptions } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { type ConfigError, ConfigProvider, Effect, Fiber, Layer, Logger, ManagedRuntime } from "effect"
import type { ChildProcess } from "node:child_process"
import { readSettings } from "../../src/layers/assembly/SettingsLive.js"
import { relayStack, teamStack, tokenStack } from "../../src/layers/assembly/stacks.js"
import { RankDaemonLive } from "../../src/layers/factStore/FactStoreLive.js"
import { makeRelayServer, runOn } from "../../src/mcp/mcpHandlers.js"
import { structuredContentSetting } from "../../src/mcp/replyForm.js"
import { in2025Codes } from "../../src/mcp/rpcErrors.js"
import { warmUp } from "../../src/mcp/warmUp.js"
import { Settings } from "../../src/services/Settings.js"
import { TokenStore } from "../../src/services/TokenStore.js"
import type { RelayClient } from "./mcpClient.js"
import { callDecoded } from "./toolOutputs.js"

/** A process's environment as Relay reads it, without the process: no other variable, and no `.env`. */
const providerOf = (env: Readonly<Record<string, string>>) => ConfigProvider.fromMap(new Map(Object.entries(env)))

/** A stack as an entry point builds it (stacks.ts) on the settings `relay` reads from that environment. */
const stackFrom = <ROut, E, R>(
  provider: ConfigProvider.ConfigProvider,
  stack: (settings: Layer.Layer<Settings, ConfigError.ConfigError>) => Layer.Layer<ROut, E, R>
) =>
  stack(Layer.effect(Settings, readSettings(provider, ConfigProvider.fromMap(new Map())))).pipe(
    Layer.provide(Layer.setConfigProvider(provider))
  )

/** Effect's logfmt lines, as `relay` writes them to stderr, handed to `onLine` instead. */
const capturingLogger = (onLine: (line: string) => void) =>
  Logger.replace(Logger.defaultLogger, Logger.logfmtLogger.pipe(Logger.map(onLine)))

/**
 * A token as `npm run token -- create` makes it (TokenStore.create on the token graph the
 * environment names), without starting the CLI: test/team/auth.test.ts runs the CLI itself.
 */
export const createTokenInProcess = (
  env: Readonly<Record<string, string>>,
  options: {
    readonly name: string
    readonly workspace: string
    readonly readOnly: boolean
    readonly approver?: boolean
  }
): Promise<string> => {
  const provider = providerOf(env)
  return Effect.runPromise(
    Effect.flatMap(TokenStore, (tokens) => tokens.create(options)).pipe(
      Effect.map(({ token }) => token),
      Effect.provide(stackFrom(provider, tokenStack)),
      Effect.withConfigProvider(provider)
    )
  )
}

/**
 * Relay's MCP server in this test's process, reached by the SDK's own Client over a linked pair of
 * in-memory transports: the same Server (makeRelayServer, answering a 2025 client in 2025's codes
 * as stdio does), the same stack as `relay` builds from the same environment (relayStack over the
 * settings it reads, and the importance daemon), and the same log lines, kept for `stderr()`. What it leaves out is the stdio framing and the process
 * itself, which test/mcp/stdio.test.ts, test/hostile/stdio-*.test.ts and the process tests keep
 * spawning `dist/server.js` for; everything a tool does, from the policies to the statements, is
 * the real path on the real database.
 */
export const connectInProcess = async (
  graph: string,
  env: Record<string, string>,
  name: string,
  clientOptions?: ClientOptions
): Promise<RelayClient> => {
  let stderr = ""
  const provider = providerOf(env)
  const logger = capturingLogger((line) => {
    stderr += `${line}\n`
  })
  const stack = RankDaemonLive.pipe(
    Layer.provideMerge(stackFrom(provider, relayStack)),
    Layer.provide(logger)
  )
  const runtime = ManagedRuntime.make(Layer.merge(stack, logger))
  const rt = await runtime.runtime()
  // As `relay` does while its client starts; awaited here, so a test's first statement finds the indexes.
  await runtime.runPromise(warmUp)
  const json = await Effect.runPromise(Effect.withConfigProvider(structuredContentSetting, provider))
  const server = makeRelayServer(runOn(rt), undefined, { json })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  // The SDK's Client here speaks 2025-11-25: its answers go in 2025's codes, as stdio sends them.
  const send = serverSide.send.bind(serverSide)
  serverSide.send = (message, options) => send(in2025Codes(message), options)
  await server.connect(serverSide as never)
  const client = new Client({ name, version: "0.0.0" }, clientOptions)
  await client.connect(clientSide)
  // Closing the client ends the server and its runtime too, as a client leaving ends `relay`.
  const closeClient = client.close.bind(client)
  client.close = async () => {
    await closeClient()
    await server.close()
    await runtime.dispose()
  }
  return {
    client,
    graph,
    stderr: () => stderr,
    call: (tool, args) => callDecoded(client, tool, args),
    close: () => client.close()
  }
}

/** What a test reads of `relay --http`, started in this process or (with `process`) as one. */
export interface TestHttpRelay {
  readonly url: string
  /** The process, where there is one. */
  readonly process?: ChildProcess
  /** Everything the server logged so far. */
  readonly stderr: () => string
  /** Stops it; resolves once it has stopped. */
  readonly stop: () => Promise<void>
}

/**
 * `relay --http` in this process: the team stack from the environment given (tokens, OAuth, a store
 * per workspace) and `serveHttp` on a real port, which the SDK's Streamable HTTP client, a browser
 * or fetch reach as they reach the process. Ready when it logs where it listens, as the process is.
 */
export const startHttpInProcess = async (env: Readonly<Record<string, string>>): Promise<TestHttpRelay> => {
  const provider = providerOf({ RELAY_HTTP_PORT: "0", ...env })
  let stderr = ""
  let ready: (url: string) => void = () => undefined
  const listening = new Promise<string>((resolve) => {
    ready = resolve
  })
  const logger = capturingLogger((line) => {
    stderr += `${line}\n`
    const at = /ready on (http:\/\/\S+\/mcp)/.exec(line)
    if (at !== null) ready(at[1]!)
  })
  const { serveHttp } = await import("../../src/http/serveHttp.js")
  const fiber = Effect.runFork(
    Effect.scoped(serveHttp).pipe(
      Effect.provide(stackFrom(provider, teamStack)),
      Effect.withConfigProvider(provider),
      Effect.provide(logger)
    )
  )
  const failed = Fiber.join(fiber).pipe(
    Effect.flatMap(() => Effect.fail(new Error("relay --http ended before it listened"))),
    Effect.mapError((e) => new Error(`relay --http could not start: ${String(e)}\n${stderr.slice(-800)}`))
  )
  const url = await Promise.race([listening, Effect.runPromise(failed)])
  return {
    url,
    stderr: () => stderr,
    stop: () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined)
  }
}
