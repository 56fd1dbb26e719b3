import { Effect, Option, Schema } from "effect"
import { Cursor } from "../domain/paging.js"
import { type Procedure, type Run, RunsCursor } from "../domain/procedures.js"
import { callTool, failure, internalMessage, type ToolResult } from "../mcp/callTool.js"
import type { ToolServices } from "../mcp/mcpHandlers.js"
import { FactStore } from "../services/FactStore.js"
import { findProcedure } from "../tools/findProcedure.js"
import type { StudioWorkspace } from "./studioSessions.js"

/**
 * A procedure as the studio shows it (issue 44): relay_find_procedure's answer for one id (its
 * checks and steps, its earlier versions with their own counts, one page of runs newest first and
 * a cursor), plus how much that page leaves out, so a procedure with 100,000 runs or a long lineage
 * answers one bounded page that says what is left. Both counts come from what the page read (the
 * cursor's run place, the version number), never from counting runs.
 */
export interface ProcedureView {
  readonly procedure: Procedure
  readonly runs: ReadonlyArray<Run>
  readonly next_cursor: string | null
  /** Runs older than this page. */
  readonly runs_more: number
  /** Earlier versions older than those `procedure.earlier` lists. */
  readonly earlier_more: number
}

const decodeCursor = Schema.decodeUnknownOption(Cursor)

/** The runs below the page: the cursor holds the place of the page's last run, and places start at 1. */
const runsBelow = (cursor: string | null): number =>
  cursor === null ? 0 : Option.match(decodeCursor(cursor), {
    onNone: () => 0,
    onSome: (key) => Math.max(0, (RunsCursor.read(key)?.place ?? 1) - 1)
  })

/**
 * Runs a tool call on the session's workspace (its store, its rate limit). callTool maps every
 * failure itself; what still fails (a defect, an interruption) is `internal`, as an MCP call's.
 */
export const runTool =
  (workspace: StudioWorkspace) => <E>(program: Effect.Effect<ToolResult, E, ToolServices>): Effect.Effect<ToolResult> =>
    program.pipe(
      Effect.provide(workspace.runtime),
      Effect.catchAllCause(() => Effect.succeed(failure("internal", internalMessage)))
    )

/** The procedure `id` with a page of its runs (from `cursor`), or the tool's failure as it answered it. */
export const readProcedure = Effect.fn("relay_studio_procedure")(function*(
  workspace: StudioWorkspace,
  id: string,
  cursor: string | undefined
) {
  const result: ToolResult = yield* runTool(workspace)(
    callTool(findProcedure, cursor === undefined ? { procedure_id: id } : { procedure_id: id, cursor })
  )
  if (result.isError === true) return result
  const out = result.structuredContent as {
    procedures: ReadonlyArray<Procedure>
    runs?: ReadonlyArray<Run>
    next_cursor: string | null
  }
  const procedure = out.procedures[0]!
  const view: ProcedureView = {
    procedure,
    runs: out.runs ?? [],
    next_cursor: out.next_cursor,
    runs_more: runsBelow(out.next_cursor),
    earlier_more: Math.max(0, procedure.version - 1 - procedure.earlier.length)
  }
  return view
})

export const isFailure = (x: ProcedureView | ToolResult): x is ToolResult => "content" in x

/**
 * Whether fact `id` (a whole id) is a procedure, by one exact lookup under the database's own
 * timeout; null when the database did not answer.
 */
export const isProcedure = (workspace: StudioWorkspace, id: string): Effect.Effect<boolean | null> =>
  Effect.flatMap(FactStore, (store) => store.kinds([id])).pipe(
    Effect.provide(workspace.runtime),
    Effect.match({ onFailure: () => null, onSuccess: (kinds) => kinds.get(id)?.kind === "procedure" })
  )
