import { describe, expect, it } from "@effect/vitest"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { Arbitrary, FastCheck as fc, Schema } from "effect"
import { failure } from "../../src/mcp/callTool.js"
import { compactReply } from "../../src/mcp/compactJson.js"
import { listing } from "../../src/mcp/mcpHandlers.js"
import { pageFor } from "../../src/mcp/render.js"
import { listedInForm } from "../../src/mcp/replyForm.js"
import { tools } from "../../src/tools/registry.js"

/**
 * The compact JSON (mcp/compactJson.ts) is derived twice from one output Schema: the value by
 * compactReply, the listed outputSchema by compactSchema. On outputs generated from each tool's
 * Schema, the two must agree (clients validate every reply against the listing), what the compact
 * form leaves out is gone, and it never costs more than the full form.
 */
const ajv = new AjvJsonSchemaValidator()
const keysIn = (v: unknown, into = new Set<string>()): Set<string> => {
  if (Array.isArray(v)) v.forEach((x) => keysIn(x, into))
  else if (typeof v === "object" && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      into.add(k)
      keysIn(x, into)
    }
  }
  return into
}

describe("compact JSON against its listed outputSchema", () => {
  for (const tool of tools) {
    const listed = listedInForm({ json: "compact" }, listing.find((l) => l.name === tool.name)!)
    const validate = ajv.getValidator((listed as { outputSchema?: unknown }).outputSchema as never)
    const output = Arbitrary.make(tool.output as Schema.Schema<unknown>)
    it.prop(
      `${tool.name}: every generated reply validates, carries no created_at, session_id or score, and is no longer than the full JSON`,
      [output, fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 })],
      ([o, now]) => {
        const full = Schema.encodeUnknownSync(tool.output as Schema.Schema<unknown, Record<string, unknown>>)(o)
        const compact = compactReply(full, pageFor(o, now))
        const verdict = validate(compact)
        expect(verdict.valid, verdict.errorMessage).toBe(true)
        const keys = keysIn(compact)
        for (const gone of ["created_at", "session_id", "score"]) expect(keys.has(gone), gone).toBe(false)
        // The reply's own fields all stay (a stamp as its age).
        expect(Object.keys(compact)).toEqual(Object.keys(full).map((k) => k === "created_at" ? "age" : k))
        expect(JSON.stringify(compact).length).toBeLessThanOrEqual(JSON.stringify(full).length)
      },
      { fastCheck: { numRuns: 40 } }
    )
    it(`${tool.name}: an error reply validates too`, () => {
      expect(validate(failure("internal", "Relay hit an internal error").structuredContent).valid).toBe(true)
    })
  }
})
