import { Context, type Effect, type Option, type Ref } from "effect"
import type { ToolError } from "../domain/errors.js"

/**
 * One MCP tool call. Its id is made once at the edge, before any retry, so a write retried after
 * a lost connection reuses it and the unique constraint turns a repeat into a no-op.
 */
export class ToolCall extends Context.Tag("relay/ToolCall")<ToolCall, {
  readonly id: string
  /**
   * What the call does once its reply is ready to send (an automatic briefing's cursor move): the
   * tool sets it (the last try of a retried handler wins), the edge runs it after the reply is built
   * and checked, and a call that fails before never runs it. Left out where a handler runs without
   * the edge (tests, benchmarks): the tool then does it at once.
   */
  readonly afterReply?: Ref.Ref<Option.Option<Effect.Effect<void, ToolError>>>
}>() {}
