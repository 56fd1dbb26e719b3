import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js"
import { randomBytes } from "node:crypto"
import { startHttpRelay as startHttpProcess } from "../../bench/relayProcess.js"
import { createTokenInProcess, startHttpInProcess } from "./inProcessRelay.js"
import { falkordbEnv } from "./mcpClient.js"
import { callDecoded, type OutputOf, type ToolCallResult } from "./toolOutputs.js"

export { tokenCommand } from "../../bench/relayProcess.js"
export type { TestHttpRelay as HttpRelay } from "./inProcessRelay.js"

/**
 * `relay --http` on the environment given: in this process (inProcessRelay.ts), or with `process`
 * the built dist/server.js (bench/relayProcess.ts, one copy of the process handling shared with
 * the benchmarks), where the test is about the process.
 */
export const startHttpRelay = (env: Readonly<Record<string, string>>, options: { process?: boolean } = {}) =>
  options.process === true ? startHttpProcess(env) : startHttpInProcess(env)

/** Unique per run, so runs on one database never share a workspace or an admin graph. */
export const uniqueName = (label: string) => `${label}-${randomBytes(4).toString("hex")}`

export interface DatabaseEnv {
  readonly [k: string]: string
}

/** The environment that points Relay (and the token CLI) at this run's FalkorDB. */
export const databaseEnv = (tokenGraph: string, extra: Record<string, string> = {}): DatabaseEnv =>
  falkordbEnv({ RELAY_TOKEN_GRAPH: tokenGraph, ...extra })

/** A token as `npm run token -- create` makes it (see createTokenInProcess). */
export const createToken = (env: DatabaseEnv, name: string, workspace: string, readOnly = false) =>
  createTokenInProcess(env, { name, workspace, readOnly })

export interface HttpClient {
  readonly client: Client
  readonly transport: StreamableHTTPClientTransport
  /** A tool call; its structuredContent decoded with the tool's output Schema (or ErrorOutput). */
  readonly call: <N extends string>(name: N, args?: Record<string, unknown>) => Promise<ToolCallResult<OutputOf<N>>>
  readonly close: () => Promise<void>
}

/**
 * The SDK's own Streamable HTTP client with a bearer token, as Cursor's `url` form would connect;
 * `fetch` lets a test see the HTTP answers (status, headers) the client turns into results or throws.
 */
export const connectHttp = async (
  url: string,
  token: string,
  headers: Record<string, string> = {},
  fetch?: FetchLike
): Promise<HttpClient> => {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
    ...(fetch === undefined ? {} : { fetch })
  })
  const client = new Client({ name: "relay-team-test", version: "0.0.0" })
  await client.connect(transport)
  return {
    client,
    transport,
    call: (name, args) => callDecoded(client, name, args),
    close: () => client.close()
  }
}

/** A raw JSON-RPC POST, for the requests a well-behaved client would never send. */
export const rawPost = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body)
  })

export const initializeBody = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
}
