import { Effect } from "effect"
import { ContextInput } from "../domain/inputs.js"
import { ContextOutput } from "../domain/outputs.js"
import { FactStore } from "../services/FactStore.js"
import { renderContext } from "./render/reads.js"
import { defineTool, readOnly } from "./Tool.js"

export const getContext = defineTool({
  name: "relay_get_context",
  description: "Chain a fact builds on, root first: read before relying on it",
  annotations: readOnly("Get a fact's context"),
  input: ContextInput,
  output: ContextOutput,
  render: renderContext,
  handler: Effect.fn("relay/tools/relay_get_context")(function*(input) {
    const chain = yield* (yield* FactStore).context(
      input.fact_id,
      { limit: input.limit, cursor: input.cursor ?? null },
      input.as_of ?? null
    )
    return { chain: chain.items, next_cursor: chain.next_cursor }
  })
})
