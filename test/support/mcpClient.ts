import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"
import { testGraphName } from "./testLayer.js"
import { decodeStructured, type OutputOf, type ToolCallResult } from "./toolOutputs.js"

export type { ToolCallResult } from "./toolOutputs.js"

/**
 * The undecoded shape, kept only for test/support/httpRelay.ts and the team tests until they decode
 * too (owned elsewhere); everything over stdio uses ToolCallResult.
 */
export interface CallResult {
  readonly isError?: boolean
  readonly content: Array<{ type: string; text?: string }>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly structuredContent?: any
}

export const serverEntry = fileURLToPath(new URL("../../dist/server.js", import.meta.url))

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
 * Spawns the built `dist/server.js` and connects the SDK's own Client over stdio, as Claude Desktop
 * would. The server talks to this run's FalkorDB in a graph of its own (or the one given).
 */
export const connectRelay = async (
  options: { graph?: string; env?: Record<string, string>; name?: string } = {}
): Promise<RelayClient> => {
  const { host, password, port } = inject("falkordb")
  const graph = options.graph ?? testGraphName("mcp")
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    FALKORDB_HOST: host,
    FALKORDB_PORT: String(port),
    FALKORDB_PASSWORD: password,
    RELAY_GRAPH: graph,
    ...options.env
  }
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
    call: async <N extends string>(name: N, args: Record<string, unknown> = {}) => {
      const result = await client.callTool({ name, arguments: args })
      const isError = result.isError === true
      return {
        ...result,
        isError: isError ? true : undefined,
        structuredContent: decodeStructured(name, isError, result.structuredContent)
      } as ToolCallResult<OutputOf<N>>
    },
    close: () => client.close()
  }
}

/** For `it.effect` tests: a client released with the scope. */
export const relayClient = (options: Parameters<typeof connectRelay>[0] = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => connectRelay(options)),
    (c) => Effect.promise(() => c.close())
  )
