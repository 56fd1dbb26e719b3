import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { toIso } from "../domain/time.js"
import { parseIsoTimestamp } from "../domain/time.js"
import { callTool, type ToolResult } from "../mcp/callTool.js"
import { FactStore } from "../services/FactStore.js"
import { detectConflicts } from "../tools/detectConflicts.js"
import { getClusters } from "../tools/getClusters.js"
import { getContext } from "../tools/getContext.js"
import { getImpact } from "../tools/getImpact.js"
import { getThread } from "../tools/getThread.js"
import { search } from "../tools/search.js"
import { isFailure, isProcedure, readProcedure, runTool } from "./studioProcedure.js"
import { sendJson } from "./studioReplies.js"
import type { StudioWorkspace } from "./studioSessions.js"

/**
 * The studio's read-only JSON API. Each answer comes from a tool (the same input decoding, policies,
 * rate limit and reply guard as an MCP call) or, for the timeline and whether a fact is a procedure,
 * from the FactStore's read, on the session's workspace. Only GET; nothing here writes. Query
 * parameters are passed to the tools as given, so a bad one is the tool's own `invalid_input` (400).
 */
type Params = Readonly<Record<string, string | ReadonlyArray<string>>>
const param = (params: Params, name: string): string | undefined => {
  const v = params[name]
  const first = typeof v === "string" ? v : v?.[0]
  return first === undefined || first === "" ? undefined : first
}

const withOptional = (args: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined))

const unavailable = () => sendJson(503, { error: { code: "unavailable", message: "try again" } })

const answer = (result: ToolResult) => {
  if (result.isError === true) {
    const error = (result.structuredContent as { error: { code: string; message: string } } | undefined)?.error
    const status = error?.code === "rate_limited" ? 429 : error?.code === "fact_not_found" ?
      404 :
      error?.code === "unavailable" || error?.code === "internal"
      ? 503
      : 400
    return sendJson(status, { error: error ?? { code: "internal", message: "internal error" } })
  }
  return sendJson(200, result.structuredContent ?? {})
}

export const studioApi = Effect.fn("relay_studio_api")(function*(route: string, workspace: StudioWorkspace) {
  const url = yield* HttpServerRequest.ParsedSearchParams
  const run = runTool(workspace)
  const asOf = param(url, "as_of")
  switch (route) {
    case "me":
      // Which database and graph: on a laptop only (a team's studio does not tell its storage).
      return sendJson(200, withOptional({ name: workspace.name, where: workspace.where }))
    case "threads":
      return answer(
        yield* run(
          callTool(getClusters, withOptional({ limit: 50, facts_per_cluster: 1, cursor: param(url, "cursor") }))
        )
      )
    case "thread":
      return answer(
        yield* run(callTool(
          getThread,
          withOptional({ fact_id: param(url, "fact") ?? "", limit: 200, cursor: param(url, "cursor"), as_of: asOf })
        ))
      )
    case "fact": {
      const id = param(url, "id") ?? ""
      const context = yield* run(callTool(getContext, withOptional({ fact_id: id, limit: 50, as_of: asOf })))
      if (context.isError === true) return answer(context)
      const impact = yield* run(callTool(getImpact, { fact_id: id, limit: 50 }))
      if (impact.isError === true) return answer(impact)
      // A procedure (issue 44) comes with its steps, versions and first page of runs, as they are now.
      const chain = (context.structuredContent as { chain: ReadonlyArray<{ id: string }> }).chain
      const whole = chain[chain.length - 1]?.id ?? id
      const procedural = yield* isProcedure(workspace, whole)
      if (procedural === null) return unavailable()
      const procedure = procedural ? yield* readProcedure(workspace, whole, undefined) : undefined
      if (procedure !== undefined && isFailure(procedure)) return answer(procedure)
      return sendJson(
        200,
        withOptional({ context: context.structuredContent, impact: impact.structuredContent, procedure })
      )
    }
    case "procedure": {
      const procedure = yield* readProcedure(workspace, param(url, "id") ?? "", param(url, "cursor"))
      return isFailure(procedure) ? answer(procedure) : sendJson(200, procedure)
    }
    case "conflicts":
      return answer(
        yield* run(callTool(
          detectConflicts,
          withOptional({ limit: 50, as_of: asOf, cursor: param(url, "cursor"), thread: param(url, "thread") })
        ))
      )
    case "search":
      return answer(
        yield* run(
          callTool(search, withOptional({ query: param(url, "q") ?? "", status: "any", limit: 20, as_of: asOf }))
        )
      )
    case "timeline": {
      const at = asOf === undefined ? null : parseIsoTimestamp(asOf) ?? null
      const entries = yield* Effect.flatMap(FactStore, (store) => store.timeline({ limit: 50, before: null, asOf: at }))
        .pipe(Effect.either, Effect.provide(workspace.runtime))
      if (entries._tag === "Left") return unavailable()
      return sendJson(200, {
        entries: entries.right.map((e) => ({ ...e, created_at: toIso(e.created_at) }))
      })
    }
    default:
      return sendJson(404, { error: { code: "not_found", message: "no such studio API" } })
  }
})
