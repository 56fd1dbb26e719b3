import { describe, expect, it } from "@effect/vitest"
import { Ajv } from "ajv"
import { factStatuses } from "../../src/domain/fact.js"
import { listing } from "../../src/mcp/mcpHandlers.js"
import { httpListing } from "../../src/mcp/teamGate.js"

type Node = { readonly [k: string]: unknown }
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * The keywords both Gemini's function declarations (its OpenAPI-3.0 Schema object) and OpenAI's
 * function calling read; anything else is refused by one of them or silently dropped.
 */
const sharedKeywords = new Set([
  "type",
  "description",
  "title",
  "enum",
  "items",
  "properties",
  "required",
  "anyOf",
  "default",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "format",
  "pattern"
])
const singleTypes = new Set(["string", "number", "integer", "boolean", "array", "object", "null"])

/** Every place a schema breaks the subset, as "path: what"; empty when it is portable. */
const subsetProblems = (node: unknown, path: string): Array<string> => {
  if (!isNode(node)) return [`${path}: not a schema object`]
  const problems: Array<string> = []
  for (const key of Object.keys(node)) if (!sharedKeywords.has(key)) problems.push(`${path}: keyword ${key}`)
  const { anyOf, items, properties, type } = node
  if (type === undefined && anyOf === undefined) problems.push(`${path}: neither type nor anyOf`)
  if (type !== undefined && !(typeof type === "string" && singleTypes.has(type))) {
    problems.push(`${path}: type ${JSON.stringify(type)} is not one type name`)
  }
  if (type === "array" && items === undefined) problems.push(`${path}: array without items`)
  if (items !== undefined) problems.push(...subsetProblems(items, `${path}.items`))
  if (Array.isArray(anyOf)) anyOf.forEach((m, i) => problems.push(...subsetProblems(m, `${path}.anyOf[${i}]`)))
  if (isNode(properties)) {
    for (const [k, v] of Object.entries(properties)) problems.push(...subsetProblems(v, `${path}.${k}`))
  }
  return problems
}

describe("input schemas every model provider takes (issue 26)", () => {
  const all = [...listing.map((t) => ["stdio", t] as const), ...httpListing.map((t) => ["http", t] as const)]

  it("each compiles under Ajv strict, with no union-type allowance", () => {
    const ajv = new Ajv({ strict: true, allErrors: true })
    for (const [edge, tool] of all) {
      expect(() => ajv.compile(tool.inputSchema), `${edge} ${tool.name}`).not.toThrow()
    }
  })

  it("each stays within the keywords Gemini's and OpenAI's function schemas share: one type a node, items on arrays", () => {
    for (const [edge, tool] of all) {
      expect(tool.inputSchema.type).toBe("object")
      expect(subsetProblems(tool.inputSchema, `${edge} ${tool.name}`)).toEqual([])
    }
  })

  it("the checker catches the shapes that broke clients", () => {
    expect(subsetProblems({ type: ["string", "array"] }, "f")).toEqual([
      `f: type ["string","array"] is not one type name`
    ])
    expect(subsetProblems({ type: "array" }, "f")).toEqual(["f: array without items"])
    expect(subsetProblems({ type: "object", properties: { a: { $ref: "#/x" } } }, "f")).toEqual([
      "f.a: keyword $ref",
      "f.a: neither type nor anyOf"
    ])
    expect(() => new Ajv({ strict: true }).compile({ type: ["string", "array"] })).toThrow(/union type/)
  })

  it("the status filter is advertised as one of its values (an enum) or a list, and the list still validates", () => {
    for (const name of ["relay_search", "relay_get_current_state"]) {
      const tool = listing.find((t) => t.name === name)!
      const status = (tool.inputSchema as unknown as { properties: Record<string, Node> }).properties.status
      expect(status?.anyOf).toEqual([
        { type: "string", enum: ["any", ...factStatuses] },
        { type: "array", items: { type: "string" } }
      ])
      const validate = new Ajv({ strict: true }).compile(tool.inputSchema)
      const input = name === "relay_search" ? { query: "x" } : {}
      expect(validate({ ...input, status: ["active", "stale"] })).toBe(true)
      expect(validate({ ...input, status: "any" })).toBe(true)
      expect(validate({ ...input, status: "Active" })).toBe(false)
      expect(validate({ ...input, status: 3 })).toBe(false)
    }
  })
})
