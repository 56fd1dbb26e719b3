import { Effect } from "effect"
import { InvalidInput } from "../domain/errors.js"
import { ResolveConflictInput } from "../domain/inputs.js"
import { ResolveConflictOutput } from "../domain/outputs.js"
import { requestCallId } from "../domain/requestId.js"
import { toIso } from "../domain/time.js"
import { FactStore } from "../services/FactStore.js"
import { SecretScanner } from "../services/SecretScanner.js"
import { ToolCall } from "../services/ToolCall.js"
import { renderResolveConflict } from "./render/writes.js"
import { defineTool } from "./Tool.js"

const needs = (field: string, outcome: string) =>
  new InvalidInput({ message: `${field}: required with outcome ${outcome}` })
const refuses = (field: string, outcome: string) =>
  new InvalidInput({ message: `${field}: not taken with outcome ${outcome}` })

export const resolveConflict = defineTool({
  name: "relay_resolve_conflict",
  description: "Winner supersedes loser (stales dependents), or outcome compatible",
  annotations: {
    title: "Resolve a conflict",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false
  },
  // The first page of what it made stale is listed at the default size; relay_get_impact pages on.
  unlisted: ["limit"],
  input: ResolveConflictInput,
  output: ResolveConflictOutput,
  render: renderResolveConflict,
  handler: Effect.fn("relay/tools/relay_resolve_conflict")(function*(input) {
    const reason = input.reason.trim()
    const scanner = yield* SecretScanner
    yield* scanner.check("reason", reason)
    const call = yield* ToolCall
    const callId = input.request_id === undefined ? call.id : requestCallId(input.resolved_by, input.request_id)
    const store = yield* FactStore
    if (input.outcome === "compatible") {
      if (input.fact_ids === undefined) return yield* needs("fact_ids", "compatible")
      if (input.winner_fact_id !== undefined) return yield* refuses("winner_fact_id", "compatible")
      if (input.loser_fact_id !== undefined) return yield* refuses("loser_fact_id", "compatible")
      const record = yield* store.compatible({
        callId,
        factIds: input.fact_ids,
        reason,
        resolvedBy: input.resolved_by
      })
      return {
        outcome: "compatible" as const,
        facts: record.facts,
        reason: record.reason,
        resolved_by: record.resolvedBy,
        created_at: toIso(record.createdAt),
        already_resolved: record.alreadyResolved,
        stale: [],
        stale_next_cursor: null
      }
    }
    if (input.fact_ids !== undefined) return yield* refuses("fact_ids", "supersede")
    if (input.winner_fact_id === undefined) return yield* needs("winner_fact_id", "supersede")
    if (input.loser_fact_id === undefined) return yield* needs("loser_fact_id", "supersede")
    const resolved = yield* store.resolve({
      callId,
      winnerId: input.winner_fact_id,
      loserId: input.loser_fact_id,
      reason,
      resolvedBy: input.resolved_by,
      staleLimit: input.limit
    })
    return {
      outcome: "supersede" as const,
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
