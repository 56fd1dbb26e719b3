import { Effect } from "effect"
import { RetractFactInput } from "../domain/inputs.js"
import { RetractFactOutput } from "../domain/outputs.js"
import { requestRetractionId } from "../domain/requestId.js"
import { toIso } from "../domain/time.js"
import { FactStore } from "../services/FactStore.js"
import { SecretScanner } from "../services/SecretScanner.js"
import { ToolCall } from "../services/ToolCall.js"
import { renderRetractFact } from "./render/writes.js"
import { defineTool } from "./Tool.js"

export const retractFact = defineTool({
  name: "relay_retract_fact",
  description: "Withdraw a wrong fact; dependents go stale. A leaked secret stays: ask the operator",
  annotations: {
    title: "Retract a fact",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false
  },
  // The first page of what it made stale is listed at the default size; relay_get_impact pages on.
  unlisted: ["limit"],
  input: RetractFactInput,
  output: RetractFactOutput,
  render: renderRetractFact,
  handler: Effect.fn("relay/tools/relay_retract_fact")(function*(input) {
    const reason = input.reason.trim()
    const scanner = yield* SecretScanner
    yield* scanner.check("reason", reason)
    const call = yield* ToolCall
    const r = yield* (yield* FactStore).retract({
      callId: input.request_id === undefined ? call.id : requestRetractionId(input.retracted_by, input.request_id),
      factId: input.fact_id,
      reason,
      retractedBy: input.retracted_by,
      staleLimit: input.limit
    })
    return {
      retraction_id: r.id,
      fact: r.fact,
      reason: r.reason,
      retracted_by: r.retractedBy,
      created_at: toIso(r.createdAt),
      already_retracted: r.alreadyRetracted,
      stale: r.stale,
      stale_next_cursor: r.staleNextCursor
    }
  })
})
