import { Effect } from "effect"
import { ImportantFactsInput } from "../domain/inputs.js"
import { ImportantFactsOutput } from "../domain/outputs.js"
import { cursorNumbers } from "../domain/paging.js"
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
    const at = yield* cursorNumbers(input.cursor, 2)
    const found = yield* (yield* FactStore).important({
      limit: input.limit,
      after: at === null ? null : [at[0]!, at[1]!]
    })
    return {
      facts: found.items,
      as_of: found.asOf === null ? null : toIso(found.asOf),
      next_cursor: found.next_cursor
    }
  })
})
