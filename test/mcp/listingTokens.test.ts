import { describe, expect, it } from "@effect/vitest"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { appListing, listing } from "../../src/mcp/mcpHandlers.js"
import { propertiesOf } from "../support/jsonSchema.js"

/**
 * tools/list is read by the model on every turn (issue 10): names, descriptions and input schemas
 * stay within 2,500 o200k tokens (issue 41: words where a model misread), every field is described, no regex is advertised, and no note is
 * repeated across the descriptions.
 */
describe("tools/list as the model reads it", () => {
  const seen = listing.map((t) =>
    JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })
  )

  it("fits its token budget", () => {
    const perTool = Object.fromEntries(listing.map((t, i) => [t.name, countTokens(seen[i]!)]))
    const total = countTokens(
      JSON.stringify(listing.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })))
    )
    expect(total, JSON.stringify(perTool)).toBeLessThanOrEqual(2500)
  })

  it("fits with the MCP App's own tools too, as a host that draws apps is sent it (and hides them from the model)", () => {
    const entries = [...listing, ...appListing].map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema
    }))
    expect(countTokens(JSON.stringify(entries))).toBeLessThanOrEqual(2500)
  })

  it("describes every input field, advertises no pattern, and says one thing once", () => {
    for (const tool of listing) {
      for (const [field, spec] of Object.entries(propertiesOf(tool.inputSchema))) {
        expect(typeof spec?.description, `${tool.name}.${field}`).toBe("string")
        expect(spec?.pattern, `${tool.name}.${field}`).toBeUndefined()
      }
    }
    // No sentence of one description appears in another.
    const sentences = listing.flatMap((t) => t.description.split(/[.:;] /).map((s) => [t.name, s.trim()] as const))
    for (const [name, s] of sentences) {
      const elsewhere = listing.filter((t) => t.name !== name && t.description.includes(s))
      expect(elsewhere.map((t) => t.name), `"${s}" of ${name}`).toEqual([])
    }
    // The identity fields are described alike, and session_id says how to choose it.
    const props = (name: string) => propertiesOf(listing.find((t) => t.name === name)!.inputSchema)
    expect(props("relay_resolve_conflict").resolved_by?.description).toBe(
      props("relay_save_fact").written_by?.description
    )
    expect(props("relay_save_fact").session_id?.description).toBe("Choose one per conversation and reuse it")
  })
})
