import { Effect } from "effect"
import { ConflictsInput } from "../domain/inputs.js"
import { ConflictsOutput } from "../domain/outputs.js"
import { cursorNumbers, encodeCursor } from "../domain/paging.js"
import { FactStore } from "../services/FactStore.js"
import { defineTool, readOnly, untrustedNote } from "./Tool.js"

export const detectConflicts = defineTool({
  name: "relay_detect_conflicts",
  description: "Find where assistants disagree: parents whose children (facts building on them) say different " +
    "things and are neither overruled nor recorded compatible yet. Each conflict gives the parent, its newest such " +
    "children (up to 20) and children_total; the parent with the newest child first. An empty list means no open " +
    "disagreement. as_of answers as the memory stood then. Next: settle one with relay_resolve_conflict " +
    "(supersede when one is right, compatible when both hold). " + untrustedNote,
  annotations: readOnly("Detect conflicts"),
  input: ConflictsInput,
  output: ConflictsOutput,
  handler: Effect.fn("relay_detect_conflicts")(function*(input) {
    const at = yield* cursorNumbers(input.cursor, 3)
    const found = yield* (yield* FactStore).openConflicts({
      limit: input.limit,
      after: at === null ? null : { snap: at[0]!, key: at[1]!, child: at[2]! },
      asOf: input.as_of ?? null
    })
    const next = found.next
    return {
      conflicts: found.conflicts,
      next_cursor: next === null ? null : encodeCursor([next.snap, next.key, next.child])
    }
  })
})
