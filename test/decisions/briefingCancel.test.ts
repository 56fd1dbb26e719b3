import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { testGraphName } from "../support/testLayer.js"
import { outputOf } from "../support/toolOutputs.js"

/**
 * Issue 40: a briefing the client cancelled (the SDK's request timeout sends notifications/cancelled)
 * still moved the reader's place, so the next briefing showed 0 of the 40 facts the cancelled one
 * never delivered. The place moves once the page is ready to send, and not when the request was
 * cancelled by then (the SDK sends no reply to a cancelled request).
 */
describe("a cancelled briefing", () => {
  let relay: RelayClient
  beforeAll(async () => {
    relay = await connectRelay({ graph: testGraphName("briefing_cancel") })
  }, 30_000)
  afterAll(async () => {
    await relay.close()
  })

  it("leaves the reader's place where it was: the next briefing shows what the cancelled one never delivered", async () => {
    for (let i = 0; i < 40; i++) {
      await relay.call("relay_save_fact", {
        content: `the deploy note number ${i}`,
        written_by: "ann",
        session_id: "a"
      })
    }
    const cancelled = await relay.client
      .callTool({ name: "relay_get_briefing", arguments: { my_name: "bob" } }, undefined, { timeout: 1 })
      .then(() => undefined, (e: { code?: number }) => e)
    expect(cancelled?.code).toBe(ErrorCode.RequestTimeout)
    // The server finishes the call it was asked to cancel and logs it; wait (bounded) until it has.
    for (let i = 0; i < 80 && !relay.stderr().includes("relay_get_briefing: cancelled by the client"); i++) {
      await new Promise((r) => setTimeout(r, 25))
    }
    const next = outputOf(await relay.call("relay_get_briefing", { my_name: "bob" }))
    expect(next.new_facts).toHaveLength(40)
    // A briefing that was delivered moves it as before.
    const after = outputOf(await relay.call("relay_get_briefing", { my_name: "bob" }))
    expect(after.new_facts).toHaveLength(0)
  })
})
