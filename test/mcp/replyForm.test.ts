import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"

/**
 * RELAY_STRUCTURED_CONTENT=false, for clients that hand the model structuredContent instead of the
 * text (Claude Code): no outputSchema is listed and no result carries structuredContent, and the text
 * alone is enough to go on (short ids that tools take back, error codes).
 */
describe("RELAY_STRUCTURED_CONTENT=false", () => {
  let relay: RelayClient
  beforeAll(async () => {
    relay = await connectRelay({ env: { RELAY_STRUCTURED_CONTENT: "false" } })
  }, 30_000)
  afterAll(() => relay.close())

  const text = (r: object) => (r as { content: Array<{ text: string }> }).content.map((c) => c.text).join("\n")

  it("lists no outputSchema and sends no structuredContent, and the text's short id works as input", async () => {
    const { tools } = await relay.client.listTools()
    expect(tools.length).toBe(16)
    expect(tools.filter((t) => t.outputSchema !== undefined).map((t) => t.name)).toEqual([])
    expect(tools.every((t) => t.inputSchema.type === "object")).toBe(true)

    const saved = await relay.client.callTool({
      name: "relay_save_fact",
      arguments: { content: "Sessions last thirty minutes", written_by: "cursor", session_id: "cursor:form" }
    })
    expect(saved.isError).not.toBe(true)
    expect(saved.structuredContent).toBeUndefined()
    const shortId = /\b([0-9a-f]{8})\b/.exec(text(saved))?.[1]
    expect(shortId).toBeDefined()

    const context = await relay.client.callTool({ name: "relay_get_context", arguments: { fact_id: shortId } })
    expect(context.structuredContent).toBeUndefined()
    expect(text(context)).toContain("\"Sessions last thirty minutes\"")
  })

  it("an error is text with its contract code, and no structuredContent", async () => {
    const r = await relay.client.callTool({ name: "relay_get_context", arguments: { fact_id: "nope" } })
    expect(r.isError).toBe(true)
    expect(r.structuredContent).toBeUndefined()
    expect(text(r)).toMatch(/invalid_input/)
  })
})

describe("RELAY_STRUCTURED_CONTENT left unset", () => {
  it("lists an outputSchema for every tool and sends structuredContent", async () => {
    const relay = await connectRelay()
    try {
      const { tools } = await relay.client.listTools()
      expect(tools.every((t) => t.outputSchema !== undefined)).toBe(true)
      const r = await relay.client.callTool({ name: "relay_get_current_state", arguments: {} })
      expect(r.structuredContent).toEqual({ facts: [], next_cursor: null })
    } finally {
      await relay.close()
    }
  }, 30_000)
})
