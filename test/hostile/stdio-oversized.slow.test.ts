import { afterEach, describe, expect, it } from "@effect/vitest"
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import { inject } from "vitest"
import { BoundedLines, requestIdOf } from "../../src/mcp/boundedLines.js"
import { tools } from "../../src/tools/registry.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { testGraphName } from "../support/testLayer.js"
import { type RawRelay, spawnRelay } from "./stdioProcess.js"

const tenMiB = 10 * 1024 * 1024
const toolNames = tools.length

/**
 * One request line of 10 MiB. The SDK's stdio transport closed itself on it (its read buffer is
 * capped at 10 MiB) and Relay went on running with nobody reading stdin: the call and every later
 * one hung. Relay now refuses the line with a JSON-RPC error and goes on serving.
 */
describe("a request line over the size limit", () => {
  let relay: RelayClient | undefined
  let raw: RawRelay | undefined
  afterEach(async () => {
    await relay?.close()
    raw?.child.kill("SIGKILL")
    relay = raw = undefined
  })

  it("is answered with an error through the SDK client, and the session goes on", async () => {
    relay = await connectRelay({ graph: testGraphName("oversized"), process: true })
    const content = "x".repeat(tenMiB)
    const refused = await relay.client
      .callTool(
        { name: "relay_save_fact", arguments: { content, written_by: "hostile", session_id: "big" } },
        undefined,
        {
          timeout: 15_000
        }
      )
      .then(() => undefined, (e: { code?: number; message?: string }) => e)
    expect(refused?.code).toBe(ErrorCode.InvalidRequest)
    expect(refused?.message).toMatch(/larger than 1 MiB/)
    expect(refused?.message).not.toContain("xxxx")

    const { tools } = await relay.client.listTools(undefined, { timeout: 5_000 })
    expect(tools).toHaveLength(toolNames)
    const saved = await relay.call("relay_save_fact", {
      content: "after the big one",
      written_by: "hostile",
      session_id: "big"
    })
    expect(saved.isError).toBeFalsy()
    // one warning, and nothing of the line itself in the log
    expect(relay.stderr().match(/request line over/g)).toHaveLength(1)
    expect(relay.stderr()).not.toContain("xxxx")
  })

  it("finds the id at the start of a raw line, and serves what follows in the same write", async () => {
    raw = spawnRelay(inject("falkordb"), testGraphName("oversized-raw"))
    await raw.initialize()
    const head = JSON.stringify({ jsonrpc: "2.0", id: 41, method: "tools/call" }).slice(0, -1)
    const params = JSON.stringify({
      name: "relay_save_fact",
      arguments: { content: "y".repeat(tenMiB), written_by: "raw", session_id: "s" }
    })
    const list = JSON.stringify({ jsonrpc: "2.0", id: 42, method: "tools/list" })
    raw.child.stdin.write(`${head},"params":${params}}\n${list}\n`)
    const refused = await raw.reply(41, 15_000)
    expect(refused.error?.code).toBe(ErrorCode.InvalidRequest)
    expect((await raw.reply(42, 5_000)).result?.tools).toHaveLength(toolNames)
    expect(raw.child.exitCode).toBeNull()
  })

  it("answers without an id when the line gives none, and still serves", async () => {
    raw = spawnRelay(inject("falkordb"), testGraphName("oversized-noid"))
    await raw.initialize()
    // Not JSON at all: no id to find, so the error goes out with id null (JSON-RPC's rule).
    raw.child.stdin.write("[" + "z".repeat(tenMiB) + "\n")
    raw.send({ jsonrpc: "2.0", id: 7, method: "tools/list" })
    expect((await raw.reply(7, 15_000)).result?.tools).toHaveLength(toolNames)
    const anonymous = raw.messages().filter((m) => m.id === null && m.error !== undefined)
    expect(anonymous).toHaveLength(1)
    expect(anonymous[0]?.error?.code).toBe(ErrorCode.InvalidRequest)
  })

  it("answers a malformed line with -32700 (with the id its start shows) and a non-JSON-RPC one with -32600, id null, and still serves", async () => {
    raw = spawnRelay(inject("falkordb"), testGraphName("malformed"))
    await raw.initialize()
    raw.child.stdin.write(`{"jsonrpc":"2.0","id":5,"method":"tools/list"\n{"hello":1}\n`)
    raw.send({ jsonrpc: "2.0", id: 8, method: "tools/list" })
    expect((await raw.reply(8, 5_000)).result?.tools).toHaveLength(toolNames)
    const anonymous = raw.messages().filter((m) => m.id === null)
    expect(anonymous.map((m) => m.error?.code)).toEqual([ErrorCode.InvalidRequest])
    // The line was cut short, but its id is readable: the client waiting on 5 gets its answer (issue 40).
    expect(raw.messages().filter((m) => m.id === 5).map((m) => m.error?.code)).toEqual([ErrorCode.ParseError])
  })
})

describe("BoundedLines", () => {
  /** Feeds `input` in chunks of `size` bytes; returns the lines passed on and the refusals. */
  const run = async (input: string, max: number, size: number) => {
    const refused: Array<{ id: unknown; bytes: number }> = []
    const lines = new BoundedLines(max, (id, bytes) => refused.push({ id, bytes }))
    const passed: Array<string> = []
    lines.on("data", (line: Buffer) => passed.push(line.toString()))
    const bytes = Buffer.from(input)
    for (let i = 0; i < bytes.length; i += size) lines.write(bytes.subarray(i, i + size))
    await new Promise((resolve) => lines.end(resolve))
    return { passed, refused }
  }

  it("passes lines up to the limit whole, one a chunk, however they were split", async () => {
    const { passed, refused } = await run(`${"a".repeat(10)}\n{"id":1}\n\n${"b".repeat(9)}\r\n`, 10, 3)
    expect(passed).toEqual([`${"a".repeat(10)}\n`, `{"id":1}\n`, "\n", `${"b".repeat(9)}\r\n`])
    expect(refused).toEqual([])
  })

  it("drops a line one byte over, reports it with its size, and goes on", async () => {
    const line = JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { x: "c".repeat(300) }, id: "k-1" })
    const { passed, refused } = await run(`${line}\n{"id":2}\nno newline at the end`, line.length - 1, 7)
    expect(refused).toEqual([{ id: "k-1", bytes: line.length }])
    expect(passed).toEqual([`{"id":2}\n`])
  })

  it("finds only a top-level id, at either end", () => {
    const at = (message: string) => requestIdOf(message.slice(0, 256), message.slice(-256))
    const big = "d".repeat(1000)
    expect(at(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "m", params: { big } }))).toBe(5)
    expect(at(JSON.stringify({ method: "m", params: { big }, jsonrpc: "2.0", id: "abc" }))).toBe("abc")
    expect(at(JSON.stringify({ method: "m", params: { big }, id: 6, jsonrpc: "2.0" }))).toBe(6)
    // ids inside the params, or spelled inside a string, are not the request's
    expect(at(JSON.stringify({ jsonrpc: "2.0", method: "m", params: { big, id: 9 } }))).toBeUndefined()
    expect(at(JSON.stringify({ jsonrpc: "2.0", method: "m", params: { a: { id: 9 }, big } }))).toBeUndefined()
    expect(at(JSON.stringify({ jsonrpc: "2.0", method: "m", params: { big: `${big}","id":9}` } }))).toBeUndefined()
    expect(at(JSON.stringify({ jsonrpc: "2.0", method: "m", params: { big: `{"id":9,${big}` } }))).toBeUndefined()
    expect(at(JSON.stringify({ jsonrpc: "2.0", method: "m", params: { big }, id: 1.5 }))).toBeUndefined()
    expect(at(`[${big}`)).toBeUndefined()
  })
})
