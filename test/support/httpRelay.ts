import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { inject } from "vitest"
import type { CallResult } from "./mcpClient.js"

const serverEntry = fileURLToPath(new URL("../../dist/server.js", import.meta.url))
const tokenCli = fileURLToPath(new URL("../../dist/cli/token.js", import.meta.url))

/** Unique per run, so runs on one database never share a workspace or an admin graph. */
export const uniqueName = (label: string) => `${label}-${randomBytes(4).toString("hex")}`

export interface DatabaseEnv {
  readonly [k: string]: string
}

/** The environment that points Relay (and the token CLI) at this run's FalkorDB. */
export const databaseEnv = (tokenGraph: string, extra: Record<string, string> = {}): DatabaseEnv => {
  const { host, password, port } = inject("falkordb")
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    FALKORDB_HOST: host,
    FALKORDB_PORT: String(port),
    FALKORDB_PASSWORD: password,
    RELAY_TOKEN_GRAPH: tokenGraph,
    ...extra
  }
}

/** Runs `node dist/cli/token.js ...` as `npm run token --` would; answers its stdout and stderr. */
export const tokenCommand = async (env: DatabaseEnv, args: ReadonlyArray<string>) => {
  const { stderr, stdout } = await promisify(execFile)(process.execPath, [tokenCli, ...args], { env })
  return { stdout: stdout.trim(), stderr }
}

export const createToken = async (env: DatabaseEnv, name: string, workspace: string, readOnly = false) =>
  (await tokenCommand(env, ["create", "--name", name, "--workspace", workspace, ...(readOnly ? ["--read-only"] : [])]))
    .stdout

export interface HttpRelay {
  readonly url: string
  readonly process: ChildProcess
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

/** Starts `node dist/server.js --http` on a free loopback port and waits for its "ready" line. */
export const startHttpRelay = (env: DatabaseEnv): Promise<HttpRelay> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [serverEntry, "--http"], {
      env: { RELAY_HTTP_PORT: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    // A test file whose setup failed before it kept the handle must not leave the server running.
    const reap = () => child.kill("SIGKILL")
    process.once("exit", reap)
    child.once("exit", () => process.off("exit", reap))
    let stderr = ""
    child.stdout.resume()
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      const ready = /ready on (http:\/\/\S+\/mcp)/.exec(stderr)
      if (ready !== null) {
        resolve({
          url: ready[1]!,
          process: child,
          stderr: () => stderr,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done()
              child.once("exit", () => done())
              child.kill("SIGTERM")
            })
        })
      }
    })
    child.once("exit", (code) => reject(new Error(`relay --http exited (${code}): ${stderr.slice(-800)}`)))
  })

export interface HttpClient {
  readonly client: Client
  readonly transport: StreamableHTTPClientTransport
  readonly call: (name: string, args?: Record<string, unknown>) => Promise<CallResult>
  readonly close: () => Promise<void>
}

/** The SDK's own Streamable HTTP client with a bearer token, as Cursor's `url` form would connect. */
export const connectHttp = async (
  url: string,
  token: string,
  headers: Record<string, string> = {}
): Promise<HttpClient> => {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } }
  })
  const client = new Client({ name: "relay-team-test", version: "0.0.0" })
  await client.connect(transport)
  return {
    client,
    transport,
    call: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<CallResult>,
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
