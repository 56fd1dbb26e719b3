import { Effect } from "effect"
import { ConfirmFactInput } from "../domain/inputs.js"
import { ConfirmFactOutput } from "../domain/outputs.js"
import { requestConfirmationId } from "../domain/requestId.js"
import { toIso } from "../domain/time.js"
import { FactStore } from "../services/FactStore.js"
import { SecretScanner } from "../services/SecretScanner.js"
import { ToolCall } from "../services/ToolCall.js"
import { renderConfirmFact } from "./render/writes.js"
import { defineTool } from "./Tool.js"

export const confirmFact = defineTool({
  name: "relay_confirm_fact",
  description: "Mark a stale fact current again, with what builds on it",
  annotations: {
    title: "Confirm a stale fact",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false
  },
  // A retry without it is harmless: the fact is current again, so it answers already_confirmed.
  unlisted: ["request_id"],
  input: ConfirmFactInput,
  output: ConfirmFactOutput,
  render: renderConfirmFact,
  handler: Effect.fn("relay/tools/relay_confirm_fact")(function*(input) {
    const reason = input.reason.trim()
    const scanner = yield* SecretScanner
    yield* scanner.check("reason", reason)
    const call = yield* ToolCall
    const c = yield* (yield* FactStore).confirm({
      callId: input.request_id === undefined ? call.id : requestConfirmationId(input.confirmed_by, input.request_id),
      factId: input.fact_id,
      reason,
      confirmedBy: input.confirmed_by
    })
    return {
      confirmation_id: c.id,
      fact: c.fact,
      reason: c.reason,
      confirmed_by: c.confirmedBy,
      created_at: toIso(c.createdAt),
      already_confirmed: c.alreadyConfirmed,
      refreshed: c.refreshed
    }
  })
})
