import { Array, Effect } from "effect"
import { chainBudgetBytes } from "../domain/chainPaging.js"
import { ContextInput } from "../domain/inputs.js"
import { ContextOutput } from "../domain/outputs.js"
import { currentBudget, encodeCursor, fitFromEnd } from "../domain/paging.js"
import { FactStore } from "../services/FactStore.js"
import { renderContext } from "./render/reads.js"
import { defineTool, readOnly } from "./Tool.js"

export const getContext = defineTool({
  name: "relay_get_context",
  description: "Chain a fact builds on, root first",
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
    const decisions = yield* store.lostDecisions(superseded, asOf)
    // The decisions share the page's budget: a page too dear with them keeps the facts nearest the
    // fact (the page's end) that fit, and the next page reads on above the oldest kept.
    const lostBy = Array.groupBy(decisions, (d) => d.fact_id)
    const kept = fitFromEnd(chain.items, (f) => lostBy[f.id] ?? [], yield* currentBudget(chainBudgetBytes))
    if (kept === chain.items.length) {
      return { chain: chain.items, superseded_by: decisions, next_cursor: chain.next_cursor }
    }
    const items = chain.items.slice(chain.items.length - kept)
    const ids = new Set(items.map((f) => f.id))
    return {
      chain: items,
      superseded_by: decisions.filter((d) => ids.has(d.fact_id)),
      next_cursor: encodeCursor([Date.parse(items[0]!.created_at)])
    }
  })
})
