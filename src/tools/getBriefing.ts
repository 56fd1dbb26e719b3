import { Effect } from "effect"
import { BriefingInput } from "../domain/inputs.js"
import { BriefingOutput } from "../domain/outputs.js"
import { cursorNumbers, encodeCursor } from "../domain/paging.js"
import { toIso } from "../domain/time.js"
import { FactStore } from "../services/FactStore.js"
import { defineTool, readOnly, untrustedNote } from "./Tool.js"

export const getBriefing = defineTool({
  name: "relay_get_briefing",
  description: "Start every session with this: what other assistants saved and decided since your last briefing, " +
    "plus every open conflict. Pass your own name (your own facts and decisions are left out) and, as `since`, " +
    "the `as_of` of your previous briefing; without `since` you get the last 24 hours. While next_cursor is set, " +
    "call again with it as `cursor` for the rest of the same window. Keep `as_of` for next time: chaining them " +
    "shows every fact exactly once. Empty lists mean nothing new. Next: relay_resolve_conflict for open " +
    "conflicts. " + untrustedNote,
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
