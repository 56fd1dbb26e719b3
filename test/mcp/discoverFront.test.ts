import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { discoverAnswer } from "../../src/mcp/discoverFront.js"
import { falkordbEnv, serverEntry } from "../support/mcpClient.js"
import { testGraphName } from "../support/testLayer.js"

/**
 * A 2026 client on the SDK's stdio transport asks server/discover of a throwaway Relay before it
 * starts the one it keeps. The stdio front answers a well-formed discover before the server loads;
 * what it answers must be what the server itself answers, and anything else must reach the server.
 */
const discover = (id: string, meta: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "server/discover",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "probe", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
        ...meta
      }
    }
  })

/**
 * Sends each line once the previous one is answered; resolves with the answers, parsed, each with
 * `ready`: whether the server had said it was ready (on stderr) when the answer came.
 */
const exchange = (lines: ReadonlyArray<string>) =>
  new Promise<Array<Record<string, unknown>>>((resolve, reject) => {
    const server = spawn(process.execPath, [serverEntry], {
      env: falkordbEnv({ RELAY_GRAPH: testGraphName("front") }),
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stderr = ""
    server.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const answers: Array<Record<string, unknown>> = []
    let out = ""
    server.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      for (let nl = out.indexOf("\n"); nl >= 0; nl = out.indexOf("\n")) {
        answers.push({ ...JSON.parse(out.slice(0, nl)), ready: stderr.includes("server ready") })
        out = out.slice(nl + 1)
        if (answers.length === lines.length) server.stdin.end()
        else server.stdin.write(`${lines[answers.length]}\n`)
      }
    })
    server.on("error", reject)
    server.on("exit", () => resolve(answers))
    server.stdin.write(`${lines[0]}\n`)
  })

describe("the stdio front", () => {
  it("answers a first discover as the server answers the same discover after it", async () => {
    const [front, server] = await exchange([discover("first"), discover("second")])
    expect(front!.id).toBe("first")
    // The front answered before the server had loaded; the server answered the second itself.
    expect([front!.ready, server!.ready]).toEqual([false, true])
    expect(server!.id).toBe("second")
    expect({ ...front, id: null, ready: null }).toEqual({ ...server, id: null, ready: null })
    expect((front!.result as { supportedVersions: unknown }).supportedVersions).toEqual(["2026-07-28"])
  }, 60_000)

  it("leaves anything else to the server, the first line included", async () => {
    // No client capabilities: the server's own refusal, not a discover answer.
    const [refused, listed] = await exchange([
      discover("bad", { "io.modelcontextprotocol/clientCapabilities": undefined }),
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old", version: "1" } }
      })
    ])
    expect((refused!.error as { code: number }).code).toBe(-32602)
    expect((listed!.result as { protocolVersion: string }).protocolVersion).toBe("2025-11-25")
  }, 60_000)

  it("answers only a well-formed 2026 discover", () => {
    expect(discoverAnswer(discover("x"))).not.toBeNull()
    for (
      const line of [
        "not json",
        discover("x", { "io.modelcontextprotocol/protocolVersion": "2025-11-25" }),
        discover("x", { "io.modelcontextprotocol/clientCapabilities": undefined }),
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
      ]
    ) expect(discoverAnswer(line)).toBeNull()
  })
})
