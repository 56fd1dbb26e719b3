import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client"
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio"
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { appMimeType, appsExtension } from "../../src/apps/threadApp.js"
import { createToken, databaseEnv, type HttpRelay, startHttpRelay, uniqueName } from "../support/httpRelay.js"
import { falkordbEnv, serverEntry } from "../support/mcpClient.js"
import { dropGraphsAfterAll } from "../support/teamLayer.js"
import { testGraphName } from "../support/testLayer.js"

/**
 * Both protocol generations on both transports, each with the official client that speaks it: the
 * v2 client pinned to 2026-07-28, in auto mode (probes server/discover, keeps 2026 when answered)
 * and in legacy mode (2025's initialize), and the v1 SDK client (2025 only). Each connects, lists
 * the tools, saves a fact with a request_id, saves it again with the same request_id (the replay
 * answers the first save's fact), and reads its context.
 */
type Mode = "2026-07-28" | "auto" | "legacy" | "v1"
const modes: ReadonlyArray<Mode> = ["2026-07-28", "auto", "legacy", "v1"]
const expected = { "2026-07-28": "2026-07-28", auto: "2026-07-28", legacy: "2025-11-25", v1: "2025-11-25" } as const

interface Connected {
  readonly version: string | undefined
  readonly listTools: () => Promise<{ readonly tools: ReadonlyArray<{ readonly name: string }> }>
  readonly call: (name: string, args: Record<string, unknown>) => Promise<{
    readonly isError?: boolean | undefined
    readonly structuredContent?: unknown
  }>
  readonly close: () => Promise<void>
}

const negotiation = (mode: Mode) => mode === "auto" || mode === "legacy" ? { mode } : { mode: { pin: "2026-07-28" } }

const connect = async (mode: Mode, how: { stdio: Record<string, string> } | { url: string; token: string }) => {
  const info = { name: `generations-${mode}`, version: "0.0.0" }
  if (mode === "v1") {
    const client = new ClientV1(info)
    await client.connect(
      "stdio" in how
        ? new StdioV1({ command: process.execPath, args: [serverEntry], env: how.stdio, stderr: "ignore" })
        : new HttpV1(new URL(how.url), { requestInit: { headers: { authorization: `Bearer ${how.token}` } } })
    )
    return {
      version: client.getServerVersion() && (client.transport as { protocolVersion?: string } | undefined)
        ?.protocolVersion,
      listTools: () => client.listTools(),
      call: async (name, args) =>
        await client.callTool({ name, arguments: args }) as Awaited<ReturnType<Connected["call"]>>,
      close: () => client.close()
    } satisfies Connected
  }
  const client = new ClientV2(info, { versionNegotiation: negotiation(mode) })
  await client.connect(
    "stdio" in how
      ? new StdioV2({ command: process.execPath, args: [serverEntry], env: how.stdio, stderr: "ignore" })
      : new HttpV2(new URL(how.url), { requestInit: { headers: { authorization: `Bearer ${how.token}` } } })
  )
  return {
    version: client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools(),
    call: (name, args) => client.callTool({ name, arguments: args }),
    close: () => client.close()
  } satisfies Connected
}

const structured = (r: { readonly structuredContent?: unknown }) => r.structuredContent as Record<string, unknown>

/** The same round of calls for every client: list, save, the same save again, context. */
const round = async (relay: Connected, mode: Mode, transport: string) => {
  const { tools } = await relay.listTools()
  expect(tools.map((t) => t.name)).toContain("relay_save_fact")
  const request_id = randomUUID()
  const save = {
    content: `${transport} ${mode}: both generations serve the same memory`,
    written_by: "generations-test",
    session_id: `generations-${mode}`,
    request_id
  }
  const first = await relay.call("relay_save_fact", save)
  expect(first.isError, JSON.stringify(first)).toBeFalsy()
  const again = await relay.call("relay_save_fact", save)
  const idOf = (r: { readonly structuredContent?: unknown }) => (structured(r)["fact"] as { id: string }).id
  expect(idOf(again)).toBe(idOf(first))
  const context = await relay.call("relay_get_context", { fact_id: idOf(first) })
  expect(context.isError, JSON.stringify(context)).toBeFalsy()
  expect(structured(context)["chain"]).toMatchObject([{ content: save.content }])
}

describe.concurrent("both generations over stdio", () => {
  const env = falkordbEnv({ RELAY_GRAPH: testGraphName("generations") })
  it.each(modes)("%s", async (mode) => {
    const relay = await connect(mode, { stdio: env })
    try {
      if (mode !== "v1") expect(relay.version).toBe(expected[mode])
      await round(relay, mode, "stdio")
    } finally {
      await relay.close()
    }
  })
})

describe("both generations over Streamable HTTP", () => {
  const tokenGraph = uniqueName("relay_tokens_generations")
  const workspace = uniqueName("generations")
  const otherWorkspace = uniqueName("generations_other")
  const env = databaseEnv(tokenGraph)
  let http: HttpRelay
  let token = ""
  let otherToken = ""
  let readOnlyToken = ""
  dropGraphsAfterAll(tokenGraph, `relay_ws_${workspace}`, `relay_ws_${otherWorkspace}`)
  beforeAll(async () => {
    token = await createToken(env, "generations-test", workspace)
    otherToken = await createToken(env, "generations-other", otherWorkspace)
    readOnlyToken = await createToken(env, "generations-reader", workspace, true)
    http = await startHttpRelay(env)
  })
  afterAll(() => http.stop())

  it.each(modes)("%s", async (mode) => {
    const relay = await connect(mode, { url: http.url, token })
    try {
      if (mode !== "v1") expect(relay.version).toBe(expected[mode])
      await round(relay, mode, "http")
    } finally {
      await relay.close()
    }
  })

  /** A 2026 request as it goes on the wire: the envelope in `_meta`, the method and name in headers. */
  const modern = (
    method: string,
    params: Record<string, unknown>,
    headers: Record<string, string> = {},
    capabilities: Record<string, unknown> = {}
  ) =>
    fetch(http.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        authorization: `Bearer ${token}`,
        ...headers
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" }
          }
        }
      })
    })

  it("answers 2026 requests in 2026's shapes, without a session, and checks their token", async () => {
    const listed = await modern("tools/list", {})
    expect(listed.status).toBe(200)
    expect(listed.headers.get("mcp-session-id")).toBeNull()
    const { result } = await listed.json() as { result: Record<string, unknown> }
    expect(result).toMatchObject({ resultType: "complete", cacheScope: "private" })
    expect(result["ttlMs"]).toBeGreaterThan(0)

    // A host that draws MCP Apps says so in each 2026 request's own capabilities (src/apps).
    const drawing = { extensions: { [appsExtension]: { mimeTypes: [appMimeType] } } }
    const withApps = await (await modern("tools/list", {}, {}, drawing)).json() as {
      result: { tools: Array<{ name: string }> }
    }
    const plain = result["tools"] as Array<{ name: string }>
    expect(withApps.result.tools.length).toBeGreaterThan(plain.length)

    const discovered = await (await modern("server/discover", {})).json() as { result: Record<string, unknown> }
    expect(discovered.result["supportedVersions"]).toContain("2026-07-28")

    // A header that disagrees with the body is refused before anything runs.
    const mismatched = await modern("tools/call", { name: "relay_status", arguments: {} }, {
      "mcp-name": "relay_save_fact"
    })
    expect(mismatched.status).toBe(400)

    // Relay announces no changes: a listen is refused rather than held open (docs/protocol.md).
    const listen = await (await modern("subscriptions/listen", { filter: {} })).json() as { error: { code: number } }
    expect(listen.error.code).toBe(-32601)

    const unsigned = await modern("tools/list", {}, { authorization: "Bearer nope" })
    expect(unsigned.status).toBe(401)
  })

  it("keeps each token's 2026 requests on its own workspace and its own rights, interleaved", async () => {
    // 2026 requests of a token reuse what its earlier ones took (sessions.ts): a reuse keyed by
    // anything but the token would answer one token with another's workspace or rights. Each token
    // is its own v2 client pinned to 2026-07-28, as a host with three connectors would hold them.
    const clients = new Map(
      await Promise.all(
        [token, otherToken, readOnlyToken].map(async (t) =>
          [t, await connect("2026-07-28", { url: http.url, token: t })] as const
        )
      )
    )
    const call = async (bearer: string, name: string, args: Record<string, unknown>) =>
      await clients.get(bearer)!.call(name, args) as { isError?: boolean; content: Array<{ text: string }> }
    const marker = randomUUID().slice(0, 8)
    const written = { session_id: "interleaved" }
    for (let i = 0; i < 3; i++) {
      expect((await call(token, "relay_save_fact", { content: `ours ${marker} ${i}`, ...written })).isError)
        .toBeUndefined()
      expect((await call(otherToken, "relay_save_fact", { content: `theirs ${marker} ${i}`, ...written })).isError)
        .toBeUndefined()
      const refused = await call(readOnlyToken, "relay_save_fact", { content: `reader ${marker} ${i}`, ...written })
      expect(refused.content[0]?.text).toMatch(/^forbidden: .*read-only/)
    }
    const texts = async (bearer: string) =>
      (await call(bearer, "relay_search", { query: marker })).content.map((c) => c.text).join("\n")
    const ours = await texts(token)
    expect(ours).toContain(`ours ${marker} 2`)
    expect(ours).not.toContain("theirs")
    expect(ours).not.toContain("reader")
    const theirs = await texts(otherToken)
    expect(theirs).toContain(`theirs ${marker} 0`)
    expect(theirs).not.toContain("ours")
    expect(await texts(readOnlyToken)).toContain(`ours ${marker} 1`)
    await Promise.all([...clients.values()].map((c) => c.close()))
  })
})
