import type { Effect, Schema } from "effect"
import type { ToolError } from "../domain/errors.js"
import type { FactStore } from "../services/FactStore.js"
import type { SecretScanner } from "../services/SecretScanner.js"
import type { TaskStore } from "../services/TaskStore.js"
import type { ToolCall } from "../services/ToolCall.js"
import type { Render } from "./render/page.js"

/** What a tool handler may use; the edge provides all of it. */
export type ToolContext = FactStore | TaskStore | SecretScanner | ToolCall

export interface ToolAnnotations {
  readonly title: string
  readonly readOnlyHint: boolean
  readonly destructiveHint?: boolean
  readonly idempotentHint?: boolean
  readonly openWorldHint: boolean
}

/** One MCP tool: its contract (schemas, description, hints), the program that answers it and how its answer reads. */
export interface Tool<I, IE, O, OE> {
  readonly name: string
  readonly description: string
  readonly annotations: ToolAnnotations
  readonly input: Schema.Schema<I, IE>
  /**
   * Input fields decoded and documented in the contract but left out of tools/list, whose every token
   * is paid on every turn: settings a model seldom needs (a lease's length, a task's attempts).
   */
  readonly unlisted?: ReadonlyArray<string>
  readonly output: Schema.Schema<O, OE>
  /** The reply's text: the output for a model to read; structuredContent (the output encoded) stays the source of truth. */
  readonly render: Render<O>
  readonly handler: (input: I) => Effect.Effect<O, ToolError, ToolContext>
  /** It reads the whole graph in bounded statements, so its call may run for seconds (policies/timeout.ts). */
  readonly wholeGraph?: boolean
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any, any, any, any>

export const defineTool = <I, IE, O, OE>(tool: Tool<I, IE, O, OE>): Tool<I, IE, O, OE> => tool

export const readOnly = (title: string): ToolAnnotations => ({ title, readOnlyHint: true, openWorldHint: false })
