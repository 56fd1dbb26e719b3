import { Effect } from "effect"
import { filterStatuses } from "../domain/fact.js"
import { CurrentStateInput } from "../domain/inputs.js"
import { CurrentStateOutput } from "../domain/outputs.js"
import { cursorNumbers } from "../domain/paging.js"
import { FactStore } from "../services/FactStore.js"
import { renderCurrentState } from "./render/reads.js"
import { defineTool, readOnly } from "./Tool.js"

export const getCurrentState = defineTool({
  name: "relay_get_current_state",
  description: "Newest facts first",
  annotations: readOnly("Get the current state"),
  // Accepted, not advertised: a session filter is for scripts more than for a model (tokens).
  unlisted: ["session_id"],
  input: CurrentStateInput,
  output: CurrentStateOutput,
  render: renderCurrentState,
  handler: Effect.fn("relay/tools/relay_get_current_state")(function*(input) {
    const at = yield* cursorNumbers(input.cursor, 1)
    const found = yield* (yield* FactStore).currentState({
      limit: input.limit,
      sessionId: input.session_id ?? null,
      statuses: filterStatuses(input.status),
      writtenBy: input.written_by ?? null,
      asOf: input.as_of ?? null,
      thread: input.thread ?? null,
      before: at === null ? null : at[0]!
    })
    return {
      facts: found.items,
      ...(found.left_out === undefined || found.left_out === 0 ? {} : { left_out: found.left_out }),
      next_cursor: found.next_cursor
    }
  })
})
