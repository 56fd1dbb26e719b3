import { Effect } from "effect"
import { ResolveConflictInput } from "../domain/inputs.js"
import { ResolveConflictOutput } from "../domain/outputs.js"
import { requestCallId } from "../domain/requestId.js"
import { toIso } from "../domain/time.js"
import { FactStore } from "../services/FactStore.js"
import { SecretScanner } from "../services/SecretScanner.js"
import { ToolCall } from "../services/ToolCall.js"
import { defineTool } from "./Tool.js"

export const resolveConflict = defineTool({
  name: "relay_resolve_conflict",
  description: "Record that the winner supersedes the loser, and why; facts built on the loser turn stale (listed)",
  annotations: {
    title: "Resolve a conflict",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false
  },
  input: ResolveConflictInput,
  output: ResolveConflictOutput,
  handler: Effect.fn("relay_resolve_conflict")(function*(input) {
    const reason = input.reason.trim()
    const scanner = yield* SecretScanner
    yield* scanner.check("reason", reason)
    yield* scanner.check("resolved_by", input.resolved_by)
    const call = yield* ToolCall
    const resolved = yield* (yield* FactStore).resolve({
      callId: input.request_id === undefined ? call.id : requestCallId(input.resolved_by, input.request_id),
      winnerId: input.winner_fact_id,
      loserId: input.loser_fact_id,
      reason,
      resolvedBy: input.resolved_by,
      staleLimit: input.limit
    })
    return {
      winner: resolved.winner,
      loser: resolved.loser,
      reason: resolved.reason,
      resolved_by: resolved.resolvedBy,
      created_at: toIso(resolved.createdAt),
      already_resolved: resolved.alreadyResolved,
      stale: resolved.stale,
      stale_next_cursor: resolved.staleNextCursor
    }
  })
})
