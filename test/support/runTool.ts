import { Effect } from "effect"
import { callTool } from "../../src/mcp/callTool.js"
import { tools } from "../../src/tools/registry.js"
import { decodedResult } from "./toolOutputs.js"

/**
 * Calls a tool the way the MCP edge does (decode, policies, handler, result mapping), in-process;
 * the structuredContent comes back decoded with the tool's output Schema (or ErrorOutput).
 */
export const runTool = <N extends string>(name: N, args: unknown) => {
  const tool = tools.find((t) => t.name === name)
  if (tool === undefined) return Effect.dieMessage(`no tool ${name}`)
  return callTool(tool, args).pipe(Effect.flatMap((r) => Effect.sync(() => decodedResult(name, r))))
}

/** The decoded output of a call that must succeed. */
export const ok = <N extends string>(name: N, args: unknown) =>
  runTool(name, args).pipe(
    Effect.flatMap((r) =>
      r.isError === true
        ? Effect.dieMessage(`${name} failed: ${r.content[0]?.text}`)
        : Effect.succeed(r.structuredContent)
    )
  )

/** The error of a call that must fail. */
export const failed = (name: string, args: unknown) =>
  runTool(name, args).pipe(
    Effect.flatMap((r) =>
      r.isError === true
        ? Effect.succeed(r.structuredContent.error)
        : Effect.dieMessage(`${name} unexpectedly succeeded`)
    )
  )
