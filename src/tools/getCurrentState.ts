import { Effect } from "effect"
import { filterStatuses } from "../domain/fact.js"
import { CurrentStateInput } from "../domain/inputs.js"
import { CurrentStateOutput } from "../domain/outputs.js"
import { cursorNumbers } from "../domain/paging.js"
import { FactStore } from "../services/FactStore.js"
import { defineTool, readOnly, untrustedNote } from "./Tool.js"

export const getCurrentState = defineTool({
  name: "relay_get_current_state",
  description: "List the most recent facts, newest first (default 20, at most 100; pass next_cursor as cursor for older ones), optionally only one session's or writer's. " +
    "Only active facts unless `status` asks for superseded (lost a decision), stale (builds on a superseded or " +
    "retracted fact), retracted (withdrawn) or \"any\". " +
    "An empty list means nothing matches. For what changed since your last visit, prefer " +
    "relay_get_briefing. " + untrustedNote,
  annotations: readOnly("Get the current state"),
  input: CurrentStateInput,
  output: CurrentStateOutput,
  handler: Effect.fn("relay_get_current_state")(function*(input) {
    const at = yield* cursorNumbers(input.cursor, 1)
    const found = yield* (yield* FactStore).currentState({
      limit: input.limit,
      sessionId: input.session_id ?? null,
      statuses: filterStatuses(input.status),
      writtenBy: input.written_by ?? null,
      asOf: input.as_of ?? null,
      before: at === null ? null : at[0]!
    })
    return { facts: found.items, next_cursor: found.next_cursor }
  })
})
