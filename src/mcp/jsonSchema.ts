import { JSONSchema, Schema } from "effect"
import { ErrorOutput } from "../domain/outputs.js"
import type { AnyTool } from "../tools/Tool.js"

type JsonObject = { readonly type: "object"; readonly [k: string]: unknown }

/**
 * Replaces each `$ref` to `#/$defs/<name>` by the definition itself (its own keywords win): several MCP
 * clients do not resolve references, and Relay's schemas are not recursive, so nothing is lost.
 */
const inline = (node: unknown, defs: Record<string, unknown>): unknown => {
  if (Array.isArray(node)) return node.map((n) => inline(n, defs))
  if (typeof node !== "object" || node === null) return node
  const { $ref, ...rest } = node as Record<string, unknown>
  const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inline(v, defs)]))
  return typeof $ref === "string" && $ref.startsWith("#/$defs/")
    ? { ...(inline(defs[$ref.slice("#/$defs/".length)], defs) as Record<string, unknown>), ...own }
    : own
}

const derive = (schema: Schema.Schema.Any): Record<string, unknown> => {
  const { $defs, $schema: _ignored, ...rest } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  return inline(rest, ($defs ?? {}) as Record<string, unknown>) as Record<string, unknown>
}

/** What clients see as a tool's inputSchema: derived from the same Schema that decodes the call. */
export const inputJsonSchema = (tool: AnyTool): JsonObject => ({ type: "object", ...derive(tool.input) })

/**
 * A failed call still carries structuredContent (`{ error }`), and clients check it against the
 * declared outputSchema, so the declared schema is "the result, or the error shape".
 */
export const outputJsonSchema = (tool: AnyTool): JsonObject => ({
  type: "object",
  ...derive(Schema.Union(tool.output, ErrorOutput))
})
