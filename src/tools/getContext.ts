import { Effect } from "effect"
import { ContextInput } from "../domain/inputs.js"
import { ContextOutput } from "../domain/outputs.js"
import { FactStore } from "../services/FactStore.js"
import { defineTool, readOnly, untrustedNote } from "./Tool.js"

export const getContext = defineTool({
  name: "relay_get_context",
  description: "Read why a fact exists: the chain of facts it builds on, from the root of its thread down to the " +
    "fact itself (last). Use it before relying on or contradicting a fact. A root fact returns a chain of one. " +
    "A long chain comes in pages: the first ends with the fact; next_cursor reads on toward the root. " +
    "Unknown ids answer fact_not_found. Next: relay_get_impact to see what builds on it. " + untrustedNote,
  annotations: readOnly("Get a fact's context"),
  input: ContextInput,
  output: ContextOutput,
  handler: Effect.fn("relay_get_context")(function*(input) {
    const chain = yield* (yield* FactStore).context(
      input.fact_id,
      { limit: input.limit, cursor: input.cursor ?? null },
      input.as_of ?? null
    )
    return { chain: chain.items, next_cursor: chain.next_cursor }
  })
})
