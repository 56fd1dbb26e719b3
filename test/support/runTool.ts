import { Effect } from "effect"
import { callTool, type ToolResult } from "../../src/mcp/callTool.js"
import { tools } from "../../src/tools/registry.js"

/** Calls a tool the way the MCP edge does (decode, policies, handler, result mapping), in-process. */
export const runTool = (name: string, args: unknown) => {
  const tool = tools.find((t) => t.name === name)
  if (tool === undefined) return Effect.dieMessage(`no tool ${name}`)
  return callTool(tool, args)
}

/** The structured result of a call that must succeed. */
export const ok = <A = any>(name: string, args: unknown) =>
  runTool(name, args).pipe(
    Effect.flatMap((r: ToolResult) =>
      r.isError === true
        ? Effect.dieMessage(`${name} failed: ${r.content[0]?.text}`)
        : Effect.succeed(r.structuredContent as A)
    )
  )

/** The error of a call that must fail. */
export const failed = (name: string, args: unknown) =>
  runTool(name, args).pipe(
    Effect.flatMap((r: ToolResult) =>
      r.isError === true
        ? Effect.succeed((r.structuredContent as { error: { code: string; message: string } }).error)
        : Effect.dieMessage(`${name} unexpectedly succeeded`)
    )
  )
