import { JSONSchema, Schema } from "effect"
import { ErrorOutput } from "../domain/outputs.js"
import type { AnyTool } from "../tools/Tool.js"

type JsonObject = { readonly type: "object"; readonly [k: string]: unknown }

const derive = (schema: Schema.Schema.Any): Record<string, unknown> => {
  const { $schema: _ignored, ...rest } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  return rest
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
