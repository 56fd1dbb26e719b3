import { Effect } from "effect"
import { ImportantCursor } from "../domain/graphRank.js"
import { ImportantFactsInput } from "../domain/inputs.js"
import { ImportantFactsOutput } from "../domain/outputs.js"
import { toIso } from "../domain/time.js"
import { FactStore } from "../services/FactStore.js"
import { renderImportantFacts } from "./render/reads.js"
import { defineTool, readOnly } from "./Tool.js"

export const getImportantFacts = defineTool({
  name: "relay_get_important_facts",
  description: "Facts most built on (PageRank), highest first",
  annotations: readOnly("Get the important facts"),
  wholeGraph: true,
  input: ImportantFactsInput,
  output: ImportantFactsOutput,
  render: renderImportantFacts,
  handler: Effect.fn("relay/tools/relay_get_important_facts")(function*(input) {
    const after = yield* ImportantCursor.decode(input.cursor)
    const found = yield* (yield* FactStore).important({ limit: input.limit, after })
    return {
      facts: found.items,
      as_of: found.asOf === null ? null : toIso(found.asOf),
      next_cursor: found.next_cursor
    }
  })
})
