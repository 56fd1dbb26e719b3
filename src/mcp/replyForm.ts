import { Config } from "effect"
import type { ToolResult } from "./callTool.js"

/**
 * RELAY_STRUCTURED_CONTENT=false: tools/list leaves out `outputSchema` and results leave out
 * `structuredContent`. Some clients (Claude Code) hand the model only structuredContent when it is
 * there: JSON with whole ids and stamps, 3-50x the tokens of the compact text (npm run bench:tokens).
 * Without it they read the text, which carries every id (short), status and cursor a model needs.
 */
export const structuredContentSetting = Config.boolean("RELAY_STRUCTURED_CONTENT").pipe(Config.withDefault(true))

export interface ReplyForm {
  readonly structured: boolean
}

/** A tool result as a client of this form is sent it. */
export const inForm = (form: ReplyForm) => (result: ToolResult): ToolResult | Omit<ToolResult, "structuredContent"> => {
  if (form.structured) return result
  const { structuredContent: _, ...text } = result
  return text
}

/** A listing entry as a client of this form is shown it. */
export const listedInForm = <T extends { readonly outputSchema?: unknown }>(form: ReplyForm, tool: T) => {
  if (form.structured) return tool
  const { outputSchema: _, ...rest } = tool
  return rest
}
