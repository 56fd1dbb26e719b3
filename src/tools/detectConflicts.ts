import { Effect } from "effect"
import { ConflictsInput } from "../domain/inputs.js"
import { ConflictsOutput } from "../domain/outputs.js"
import { namedCursor } from "../domain/paging.js"
import { FactStore } from "../services/FactStore.js"
import { renderConflicts } from "./render/reads.js"
import { defineTool, readOnly } from "./Tool.js"

/** The conflicts' keyset (layers/factStore/conflicts.ts): the snapshot, and the last parent and child shown. */
const ConflictsCursor = namedCursor("snap", "key", "parent", "child")

export const detectConflicts = defineTool({
  name: "relay_detect_conflicts",
  description: "Differing siblings no decision covers; settle with relay_resolve_conflict",
  annotations: readOnly("Detect conflicts"),
  input: ConflictsInput,
  output: ConflictsOutput,
  render: renderConflicts,
  handler: Effect.fn("relay/tools/relay_detect_conflicts")(function*(input) {
    const after = yield* ConflictsCursor.decode(input.cursor)
    const found = yield* (yield* FactStore).openConflicts({
      limit: input.limit,
      after,
      asOf: input.as_of ?? null,
      thread: input.thread ?? null
    })
    const next = found.next
    return {
      conflicts: found.conflicts,
      next_cursor: next === null ? null : ConflictsCursor.encode(next)
    }
  })
})
