import { Context } from "effect"

/**
 * One MCP tool call. Its id is made once at the edge, before any retry, so a write retried after
 * a lost connection reuses it and the unique constraint turns a repeat into a no-op.
 */
export class ToolCall extends Context.Tag("relay/ToolCall")<ToolCall, {
  readonly id: string
}>() {}
