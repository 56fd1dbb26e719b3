import { Effect } from "effect"
import { ImpactInput } from "../domain/inputs.js"
import { ImpactOutput } from "../domain/outputs.js"
import { FactStore } from "../services/FactStore.js"
import { defineTool, readOnly, untrustedNote } from "./Tool.js"

export const getImpact = defineTool({
  name: "relay_get_impact",
  description: "See what breaks if a fact is overturned: every fact that builds on it, directly or through others, " +
    "with its distance (1 = direct), nearest first, in pages (next_cursor reads on). Use it after " +
    "relay_resolve_conflict on the loser, or before changing a decision. An empty list means nothing builds on " +
    "it. Next: relay_get_context on a dependent to see its chain, or relay_save_fact to record a revised fact " +
    "under the winner. " + untrustedNote,
  annotations: readOnly("Get a fact's impact"),
  input: ImpactInput,
  output: ImpactOutput,
  handler: Effect.fn("relay_get_impact")(function*(input) {
    const dependents = yield* (yield* FactStore).impact(input.fact_id, { limit: input.limit, cursor: input.cursor ?? null })
    return { fact_id: input.fact_id, dependents: dependents.items, next_cursor: dependents.next_cursor }
  })
})
