import { Effect } from "effect"
import { NoInput } from "../domain/inputs.js"
import { ConflictsOutput } from "../domain/outputs.js"
import { FactStore } from "../services/FactStore.js"
import { defineTool, readOnly, untrustedNote } from "./Tool.js"

export const detectConflicts = defineTool({
  name: "relay_detect_conflicts",
  description: "Find where assistants disagree: pairs of facts that build on the same parent but say different " +
    "things, where neither has been overruled yet. Each conflict gives the parent and the two facts (a is the " +
    "older), newest pair first. An empty list means no open disagreement. Next: settle one with " +
    "relay_resolve_conflict. " + untrustedNote,
  annotations: readOnly("Detect conflicts"),
  input: NoInput,
  output: ConflictsOutput,
  handler: Effect.fn("relay_detect_conflicts")(function*() {
    const conflicts = yield* (yield* FactStore).openConflicts
    return { conflicts }
  })
})
