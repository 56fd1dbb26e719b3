import { Effect } from "effect"
import { ConflictsInput } from "../domain/inputs.js"
import { ConflictsOutput } from "../domain/outputs.js"
import { cursorNumbers, encodeCursor } from "../domain/paging.js"
import { FactStore } from "../services/FactStore.js"
import { renderConflicts } from "./render/reads.js"
import { defineTool, readOnly } from "./Tool.js"

export const detectConflicts = defineTool({
  name: "relay_detect_conflicts",
  description: "Differing siblings no decision covers; settle with relay_resolve_conflict",
  annotations: readOnly("Detect conflicts"),
  input: ConflictsInput,
  output: ConflictsOutput,
  render: renderConflicts,
  handler: Effect.fn("relay/tools/relay_detect_conflicts")(function*(input) {
    const at = yield* cursorNumbers(input.cursor, 4)
    const found = yield* (yield* FactStore).openConflicts({
      limit: input.limit,
      after: at === null ? null : { snap: at[0]!, key: at[1]!, parent: at[2]!, child: at[3]! },
      asOf: input.as_of ?? null,
      thread: input.thread ?? null
    })
    const next = found.next
    return {
      conflicts: found.conflicts,
      next_cursor: next === null ? null : encodeCursor([next.snap, next.key, next.parent, next.child])
    }
  })
})
