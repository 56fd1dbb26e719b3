import { describe, expect, it } from "@effect/vitest"
import { connectRelay } from "../support/mcpClient.js"
import { errorOf } from "../support/toolOutputs.js"

describe("unknown-tool calls spend the rate limit (issue 9)", () => {
  it("after RELAY_RATE_LIMIT calls to tools that do not exist, a valid call is rate_limited", async () => {
    // 3 a minute: one call comes back every 20 s, far longer than these calls take.
    const relay = await connectRelay({ env: { RELAY_RATE_LIMIT: "3" } })
    try {
      const unknown = await Promise.all(Array.from({ length: 5 }, (_, i) => relay.call(`relay_no_such_tool_${i}`)))
      const codes = unknown.map((r) => errorOf(r).code).sort()
      expect(codes).toEqual(["invalid_input", "invalid_input", "invalid_input", "rate_limited", "rate_limited"])
      const named = unknown.find((r) => errorOf(r).code === "invalid_input")!
      expect(named.content[0]?.text).toMatch(/^invalid_input: name: there is no tool called "relay_no_such_tool_\d"$/)

      const valid = await relay.call("relay_get_current_state", { limit: 1 })
      expect(valid.isError).toBe(true)
      expect(errorOf(valid).code).toBe("rate_limited")
      expect(valid.content[0]?.text).toMatch(/^rate_limited: more than 3 calls a minute; retry after \d+ s \(\d+ ms\)$/)
    } finally {
      await relay.close()
    }
  })

  it("the name echoed back is cut to 64 characters", async () => {
    const relay = await connectRelay()
    try {
      const r = await relay.call(`x${"y".repeat(10_000)}`)
      expect(errorOf(r)).toEqual({
        code: "invalid_input",
        message: `name: there is no tool called "x${"y".repeat(63)}"`
      })
    } finally {
      await relay.close()
    }
  })
})
