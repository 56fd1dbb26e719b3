import { Config, ConfigError, Either, FiberRef } from "effect"
import type { ToolResult } from "./callTool.js"
import { compactSchema } from "./compactJson.js"

/**
 * What a result's structuredContent holds:
 * - `compact` (the default): the reply's data as the text gives it, short ids and ages, with what the
 *   text leaves unsaid left out too (mcp/compactJson.ts). Some clients (Claude Code) hand the model
 *   only structuredContent when it is there, so it is paid like the text (npm run bench:tokens).
 * - `full`: whole ids, ISO stamps and every field, for programs that keep what they read.
 * - `none`: tools/list leaves out `outputSchema` and results leave out structuredContent.
 */
export type JsonForm = "compact" | "full" | "none"

const formNames = new Map<string, JsonForm>([
  ["compact", "compact"],
  ["full", "full"],
  ["none", "none"],
  // What the old boolean setting took: on is the full JSON it meant, off is none.
  ...["true", "yes", "on", "1"].map((v): [string, JsonForm] => [v, "full"]),
  ...["false", "no", "off", "0"].map((v): [string, JsonForm] => [v, "none"])
])

/** RELAY_STRUCTURED_CONTENT: compact (the default), full or none, in any case; the old boolean's values still work. */
export const structuredContentSetting: Config.Config<JsonForm> = Config.string("RELAY_STRUCTURED_CONTENT").pipe(
  Config.withDefault("compact"),
  Config.mapOrFail((raw) => {
    const form = formNames.get(raw.trim().toLowerCase())
    return form === undefined
      ? Either.left(ConfigError.InvalidData(["RELAY_STRUCTURED_CONTENT"], "must be compact, full or none (false)"))
      : Either.right(form)
  })
)

/** The form callTool encodes structuredContent in: full unless the MCP server says otherwise (resources read whole ids). */
export const jsonForm = FiberRef.unsafeMake<JsonForm>("full")

export interface ReplyForm {
  readonly json: JsonForm
}

/** A tool result as a client of this form is sent it. */
export const inForm = (form: ReplyForm) => (result: ToolResult): ToolResult | Omit<ToolResult, "structuredContent"> => {
  if (form.json !== "none") return result
  const { structuredContent: _, ...text } = result
  return text
}

/** A listing entry as a client of this form is shown it. */
export const listedInForm = <T extends { readonly outputSchema?: unknown }>(form: ReplyForm, tool: T) => {
  if (form.json === "full") return tool
  const { outputSchema, ...rest } = tool
  return form.json === "none" || outputSchema === undefined
    ? rest
    : { ...rest, outputSchema: compactSchema(outputSchema as Record<string, unknown>) }
}
