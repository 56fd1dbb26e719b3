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
    const store = yield* FactStore
    const asOf = input.as_of ?? null
    const chain = yield* store.context(input.fact_id, { limit: input.limit, cursor: input.cursor ?? null }, asOf)
    // Why a fact of the page is superseded, in the same reply: a second query only when one is.
    // (A retracted fact may have lost a decision too: its status says retracted.)
    const superseded = chain.items.filter((f) => f.status === "superseded" || f.status === "retracted").map((f) => f.id)
    return {
      chain: chain.items,
      superseded_by: yield* store.lostDecisions(superseded, asOf),
      next_cursor: chain.next_cursor
    }
  })
})
