import { Effect } from "effect"
import { BriefingInput } from "../domain/inputs.js"
import { BriefingOutput } from "../domain/outputs.js"
import { toIso } from "../domain/time.js"
import { FactStore } from "../services/FactStore.js"
import { defineTool, readOnly, untrustedNote } from "./Tool.js"

export const getBriefing = defineTool({
  name: "relay_get_briefing",
  description: "Start every session with this: what other assistants saved and decided since your last briefing, " +
    "plus every open conflict. Pass your own name (your own facts and decisions are left out) and, as `since`, " +
    "the `as_of` of your previous briefing; without `since` you get the last 24 hours. Keep the returned `as_of` " +
    "for next time: chaining them shows every fact exactly once. Empty lists mean nothing new. Next: " +
    "relay_resolve_conflict for open conflicts. " + untrustedNote,
  annotations: readOnly("Get a briefing"),
  input: BriefingInput,
  output: BriefingOutput,
  handler: Effect.fn("relay_get_briefing")(function*(input) {
    const b = yield* (yield* FactStore).briefing({ reader: input.my_name, since: input.since ?? null })
    return {
      as_of: toIso(b.asOf),
      since: toIso(b.since),
      new_facts: b.newFacts,
      decisions: b.decisions,
      open_conflicts: b.openConflicts
    }
  })
})
