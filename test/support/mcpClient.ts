import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import { inject } from "vitest"
import { serverEntry } from "../../bench/relayProcess.js"
import { connectInProcess } from "./inProcessRelay.js"
import { testGraphName } from "./testLayer.js"
import { callDecoded, type OutputOf, type ToolCallResult } from "./toolOutputs.js"

export type { ToolCallResult } from "./toolOutputs.js"

export { serverEntry }

/**
 * The environment that points a spawned Relay (or its token CLI) at this run's FalkorDB. Its
 * structuredContent is the full form (whole ids and stamps), which the tests decode with the output
 * Schemas; test/mcp/replyForm.test.ts covers the compact default.
 */
export const falkordbEnv = (extra: Record<string, string | undefined> = {}): Record<string, string> => {
  const { host, password, port } = inject("falkordb")
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    FALKORDB_HOST: host,
    FALKORDB_PORT: String(port),
    FALKORDB_PASSWORD: password,
    RELAY_STRUCTURED_CONTENT: "full",
    ...extra
  }
  // An extra set to undefined leaves the variable out (a test of a default).
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined))
}

export interface RelayClient {
  readonly client: Client
  readonly graph: string
  /** Everything the server wrote to stderr so far. */
  readonly stderr: () => string
  /** A tool call; its structuredContent decoded with the tool's output Schema (or ErrorOutput). */
  readonly call: <N extends string>(name: N, args?: Record<string, unknown>) => Promise<ToolCallResult<OutputOf<N>>>
  readonly close: () => Promise<void>
}

/**
 * The SDK's own Client connected to a Relay that talks to this run's FalkorDB in a graph of its own
 * (or the one given). By default the server runs in this process over in-memory transports
 * (inProcessRelay.ts: the same Server, stack and settings as `relay`); `process: true` spawns the
 * built `dist/server.js` and connects over stdio, as Claude Desktop would, for what only a process
 * shows: the stdio framing, its start and exit, a kill.
 */
export const connectRelay = async (
  options: { graph?: string; env?: Record<string, string | undefined>; name?: string; process?: boolean } = {}
): Promise<RelayClient> => {
  const graph = options.graph ?? testGraphName("mcp")
  const env = falkordbEnv({ RELAY_GRAPH: graph, ...options.env })
  if (options.process !== true) return connectInProcess(graph, env, options.name ?? "relay-test")
  const transport = new StdioClientTransport({ command: process.execPath, args: [serverEntry], env, stderr: "pipe" })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const client = new Client({ name: options.name ?? "relay-test", version: "0.0.0" })
  await client.connect(transport)
  return {
    client,
    graph,
    stderr: () => stderr,
    call: (name, args) => callDecoded(client, name, args),
    close: () => client.close()
  }
}

/** For `it.effect` tests: a client released with the scope. */
export const relayClient = (options: Parameters<typeof connectRelay>[0] = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => connectRelay(options)),
    (c) => Effect.promise(() => c.close())
  )
