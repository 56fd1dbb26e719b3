import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Schema } from "effect"
import { ErrorOutput } from "../../src/domain/outputs.js"
import { claimTask } from "../../src/tools/claimTask.js"
import { confirmFact } from "../../src/tools/confirmFact.js"
import { detectConflicts } from "../../src/tools/detectConflicts.js"
import { findProcedure } from "../../src/tools/findProcedure.js"
import { finishTask } from "../../src/tools/finishTask.js"
import { getBriefing } from "../../src/tools/getBriefing.js"
import { getClusters } from "../../src/tools/getClusters.js"
import { getContext } from "../../src/tools/getContext.js"
import { getCurrentState } from "../../src/tools/getCurrentState.js"
import { getImpact } from "../../src/tools/getImpact.js"
import { getImportantFacts } from "../../src/tools/getImportantFacts.js"
import { listTasks } from "../../src/tools/listTasks.js"
import { postTask } from "../../src/tools/postTask.js"
import { recordRun } from "../../src/tools/recordRun.js"
import { tools } from "../../src/tools/registry.js"
import { resolveConflict } from "../../src/tools/resolveConflict.js"
import { retractFact } from "../../src/tools/retractFact.js"
import { saveFact } from "../../src/tools/saveFact.js"
import { search } from "../../src/tools/search.js"

/**
 * Each tool's output Schema under its literal name, so a test's result is typed by the tool it
 * called. The registry holds the tools untyped (AnyTool); this table keeps their types.
 */
export const toolOutputs = {
  relay_save_fact: saveFact.output,
  relay_get_context: getContext.output,
  relay_get_impact: getImpact.output,
  relay_get_current_state: getCurrentState.output,
  relay_search: search.output,
  relay_detect_conflicts: detectConflicts.output,
  relay_resolve_conflict: resolveConflict.output,
  relay_retract_fact: retractFact.output,
  relay_confirm_fact: confirmFact.output,
  relay_get_briefing: getBriefing.output,
  relay_get_important_facts: getImportantFacts.output,
  relay_get_clusters: getClusters.output,
  relay_post_task: postTask.output,
  relay_claim_task: claimTask.output,
  relay_finish_task: finishTask.output,
  relay_list_tasks: listTasks.output,
  relay_record_run: recordRun.output,
  relay_find_procedure: findProcedure.output
} as const

export type ToolName = keyof typeof toolOutputs

/** The decoded output of a tool named N; unknown for a name that is no tool (tests call some on purpose). */
export type OutputOf<N extends string> = N extends ToolName ? Schema.Schema.Type<typeof toolOutputs[N]> : unknown

/** The JSON a tool named N answers (its output Schema's encoded side): what a bench reads without decoding. */
export type EncodedOutputOf<N extends string> = N extends ToolName ? Schema.Schema.Encoded<typeof toolOutputs[N]>
  : unknown

export type ErrorBody = typeof ErrorOutput.Type["error"]

// The table must name every registered tool with the very Schema the server encodes with.
for (const tool of tools) {
  if (toolOutputs[tool.name as ToolName] !== tool.output) throw new Error(`toolOutputs does not hold ${tool.name}`)
}
if (Object.keys(toolOutputs).length !== tools.length) throw new Error("toolOutputs names a tool that is not registered")

const isToolName = (name: string): name is ToolName => Object.hasOwn(toolOutputs, name)

/**
 * A result's structuredContent decoded: a failure with ErrorOutput, a success with the tool's
 * output Schema. A reply that does not match its Schema throws, so every test call also checks it.
 */
export const decodeStructured = (name: string, isError: boolean, structured: unknown): unknown => {
  if (isError) return Schema.decodeUnknownSync(ErrorOutput)(structured)
  if (!isToolName(name)) return structured
  return Schema.decodeUnknownSync(toolOutputs[name] as Schema.Schema<unknown, unknown>)(structured, {
    onExcessProperty: "error"
  })
}

/**
 * Calls a tool through an SDK Client (stdio or HTTP alike) and decodes its structuredContent, so
 * every test call also checks the reply against the tool's Schema.
 */
export const callDecoded = async <N extends string>(
  client: Client,
  name: N,
  args: Record<string, unknown> = {}
): Promise<ToolCallResult<OutputOf<N>>> => decodedResult(name, await client.callTool({ name, arguments: args }))

/** A tool result as the client got it, its structuredContent decoded (the output or ErrorOutput). */
export const decodedResult = <N extends string>(
  name: N,
  result: { readonly [k: string]: unknown }
): ToolCallResult<OutputOf<N>> => {
  const isError = result.isError === true
  return {
    ...result,
    isError: isError ? true : undefined,
    structuredContent: decodeStructured(name, isError, result.structuredContent)
  } as ToolCallResult<OutputOf<N>>
}

/** A call's result: on success the tool's decoded output, on failure the error. */
export type ToolCallResult<A = unknown> =
  | {
    readonly isError?: false | undefined
    readonly content: Array<{ type: string; text?: string }>
    readonly structuredContent: A
  }
  | {
    readonly isError: true
    readonly content: Array<{ type: string; text?: string }>
    readonly structuredContent: { readonly error: ErrorBody }
  }

/** The output of a result that must be a success (throws, naming the error, if not). */
export const outputOf = <A>(result: ToolCallResult<A>): A => {
  if (result.isError === true) throw new Error(`expected a success, got ${result.content[0]?.text}`)
  return result.structuredContent
}

/** The error of a result that must be a failure. */
export const errorOf = (result: ToolCallResult<unknown>): ErrorBody => {
  if (result.isError !== true) throw new Error("expected an error result, got a success")
  return result.structuredContent.error
}
