import { Effect } from "effect"
import { BriefingInput } from "../domain/inputs.js"
import { BriefingOutput } from "../domain/outputs.js"
import { cursorNumbers, encodeCursor } from "../domain/paging.js"
import { toIso } from "../domain/time.js"
import { FactStore } from "../services/FactStore.js"
import { defineTool, readOnly } from "./Tool.js"

export const getBriefing = defineTool({
  name: "relay_get_briefing",
  description: "Start each session here: what others saved and decided since `since` (default: last 24 hours), and " +
    "open conflicts. Keep as_of for next time",
  annotations: readOnly("Get a briefing"),
  input: BriefingInput,
  output: BriefingOutput,
  handler: Effect.fn("relay_get_briefing")(function*(input) {
    const at = yield* cursorNumbers(input.cursor, 6)
    const b = yield* (yield* FactStore).briefing({
      reader: input.my_name,
      since: input.since ?? null,
      limit: input.limit,
      after: at === null ? null : {
        since: at[0]!,
        asOf: at[1]!,
        factAfter: at[2]!,
        decisionAfter: at[3]!,
        conflicts: { snap: at[1]!, key: at[4]!, child: at[5]! }
      }
    })
    const n = b.next
    return {
      as_of: toIso(b.asOf),
      since: toIso(b.since),
      new_facts: b.newFacts,
      decisions: b.decisions,
      open_conflicts: b.openConflicts,
      next_cursor: n === null
        ? null
        : encodeCursor([n.since, n.asOf, n.factAfter, n.decisionAfter, n.conflicts.key, n.conflicts.child])
    }
  })
})
