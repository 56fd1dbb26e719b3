import { Effect } from "effect"
import { ImportantFactsInput } from "../domain/inputs.js"
import { ImportantFactsOutput } from "../domain/outputs.js"
import { cursorNumbers } from "../domain/paging.js"
import { FactStore } from "../services/FactStore.js"
import { defineTool, readOnly, untrustedNote } from "./Tool.js"

export const getImportantFacts = defineTool({
  name: "relay_get_important_facts",
  description: "The facts the most other work rests on (PageRank over what builds on what), highest score first, " +
    "ties to the older fact; default 10, at most 100. Use it to learn the load-bearing decisions of a project " +
    "before changing anything. An empty list means nothing has been saved. Next: relay_get_impact on one of them. " +
    untrustedNote,
  annotations: readOnly("Get the important facts"),
  input: ImportantFactsInput,
  output: ImportantFactsOutput,
  handler: Effect.fn("relay_get_important_facts")(function*(input) {
    const at = yield* cursorNumbers(input.cursor, 2)
    const found = yield* (yield* FactStore).important({ limit: input.limit, after: at === null ? null : [at[0]!, at[1]!] })
    return { facts: found.items, next_cursor: found.next_cursor }
  })
})
