import { Effect } from "effect"
import { ImpactInput } from "../domain/inputs.js"
import { ImpactOutput } from "../domain/outputs.js"
import { FactStore } from "../services/FactStore.js"
import { renderImpact } from "./render/reads.js"
import { defineTool, readOnly } from "./Tool.js"

export const getImpact = defineTool({
  name: "relay_get_impact",
  description: "Facts built on a fact, nearest first: what changing it affects",
  annotations: readOnly("Get a fact's impact"),
  input: ImpactInput,
  output: ImpactOutput,
  render: renderImpact,
  handler: Effect.fn("relay/tools/relay_get_impact")(function*(input) {
    const dependents = yield* (yield* FactStore).impact(input.fact_id, {
      limit: input.limit,
      cursor: input.cursor ?? null
    })
    return { fact_id: input.fact_id, dependents: dependents.items, next_cursor: dependents.next_cursor }
  })
})
