import { describe, expect, it } from "@effect/vitest"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { errorOf } from "../support/toolOutputs.js"

/** A call's JSON-RPC error (code, message without the SDK client's prefix, data), or a failure if it succeeded. */
const rpcErrorOf = (relay: RelayClient, name: string) =>
  relay.client.callTool({ name, arguments: {} }).then(
    () => expect.fail(`${name} answered a result`),
    (e: unknown) => {
      expect(e).toBeInstanceOf(McpError)
      const { code, data, message } = e as McpError
      return { code, data: data as { code?: string } | undefined, message: message.replace(/^MCP error -?\d+: /, "") }
    }
  )

describe("unknown-tool calls: JSON-RPC -32602, and they spend the rate limit (issues 9, 26)", () => {
  it("after RELAY_RATE_LIMIT calls to tools that do not exist, a valid call is rate_limited", async () => {
    // 3 a minute: one call comes back every 20 s, far longer than these calls take.
    const relay = await connectRelay({ env: { RELAY_RATE_LIMIT: "3" } })
    try {
      const unknown = await Promise.all(
        Array.from({ length: 5 }, (_, i) => rpcErrorOf(relay, `relay_no_such_tool_${i}`))
      )
      expect(unknown.map((e) => e.code)).toEqual(Array(5).fill(ErrorCode.InvalidParams))
      expect(unknown.map((e) => e.data?.code).sort()).toEqual(
        ["invalid_input", "invalid_input", "invalid_input", "rate_limited", "rate_limited"]
      )
      const named = unknown.find((e) => e.data?.code === "invalid_input")!
      expect(named.message).toMatch(/^invalid_input: name: there is no tool called "relay_no_such_tool_\d"$/)

      const valid = await relay.call("relay_get_current_state", { limit: 1 })
      expect(valid.isError).toBe(true)
      expect(errorOf(valid).code).toBe("rate_limited")
      expect(valid.content[0]?.text).toMatch(/^rate_limited: more than 3 calls a minute; retry after \d+ s \(\d+ ms\)$/)
    } finally {
      await relay.close()
    }
  })

  it("the name echoed back is cut to 64 characters; a cursor on an MCP list is -32602", async () => {
    const relay = await connectRelay()
    try {
      expect(await rpcErrorOf(relay, `x${"y".repeat(10_000)}`)).toEqual({
        code: ErrorCode.InvalidParams,
        data: { code: "invalid_input" },
        message: `invalid_input: name: there is no tool called "x${"y".repeat(63)}"`
      })
      for (
        const list of [
          () => relay.client.listTools({ cursor: "bogus" }),
          () => relay.client.listPrompts({ cursor: "bogus" }),
          () => relay.client.listResources({ cursor: "bogus" }),
          () => relay.client.listResourceTemplates({ cursor: "bogus" })
        ]
      ) {
        await expect(list()).rejects.toMatchObject({ code: ErrorCode.InvalidParams })
      }
      expect((await relay.client.listTools()).tools.length).toBeGreaterThan(0)
    } finally {
      await relay.close()
    }
  })
})
