import { Effect, Option, Ref } from "effect"
import { createHash } from "node:crypto"
import { InvalidInput } from "../domain/errors.js"
import { BriefingInput } from "../domain/inputs.js"
import { BriefingOutput } from "../domain/outputs.js"
import { namedCursor } from "../domain/paging.js"
import { toIso } from "../domain/time.js"
import { FactStore } from "../services/FactStore.js"
import { ToolCall } from "../services/ToolCall.js"
import { briefingProcedures } from "./briefingProcedures.js"
import { briefingTasks, noTasks } from "./briefingTasks.js"
import { renderBriefing } from "./render/briefing.js"
import { defineTool, readOnly } from "./Tool.js"

/**
 * A page cursor of an automatic briefing moves its reader's cursor, so it names that reader: 48 bits
 * of SHA-256 of the name (never 0, which marks a briefing with `since`, whose pages move nothing).
 * A page asked for under another my_name would otherwise move that name's cursor past facts it
 * filtered differently.
 */
const readerTag = (name: string): number => Math.max(1, createHash("sha256").update(name).digest().readUIntBE(0, 6))

/** A briefing page's place: its window, the last fact, decision and retraction shown, the conflicts' keyset, the reader. */
const BriefingCursor = namedCursor(
  "since",
  "asOf",
  "factAfter",
  "decisionAfter",
  "retractionAfter",
  "conflictKey",
  "conflictParent",
  "conflictChild",
  "reader"
)

const otherReader = new InvalidInput({ message: "cursor: must be a next_cursor of a briefing for this my_name" })

export const getBriefing = defineTool({
  name: "relay_get_briefing",
  description: "Start each session here: decisions, retractions, open conflicts and tasks since your last briefing, " +
    "then others' new facts (max_tokens cuts facts first)",
  annotations: readOnly("Get a briefing"),
  input: BriefingInput,
  output: BriefingOutput,
  render: renderBriefing,
  handler: Effect.fn("relay/tools/relay_get_briefing")(function*(input) {
    const at = yield* BriefingCursor.decode(input.cursor)
    const tag = at?.reader
    if (tag !== undefined && tag !== 0 && tag !== readerTag(input.my_name)) return yield* otherReader
    const b = yield* (yield* FactStore).briefing({
      reader: input.my_name,
      since: input.since ?? null,
      limit: input.limit,
      thread: input.thread ?? null,
      after: at === null ? null : {
        since: at.since,
        asOf: at.asOf,
        factAfter: at.factAfter,
        decisionAfter: at.decisionAfter,
        retractionAfter: at.retractionAfter,
        conflicts: { snap: at.asOf, key: at.conflictKey, parent: at.conflictParent, child: at.conflictChild },
        tracked: tag !== 0
      }
    })
    if (b.advance !== null) {
      // The cursor moves only once this page's reply is ready to send (src/mcp/callTool.ts).
      const call = yield* ToolCall
      if (call.afterReply === undefined) yield* b.advance
      else yield* Ref.set(call.afterReply, Option.some(b.advance))
    }
    const n = b.next
    // The tasks section is the first page's only: what stands now, not a window to page through.
    const tasks = at === null ? yield* briefingTasks(input.my_name, b.since, b.asOf, input.limit) : noTasks
    const procedures = at === null ? yield* briefingProcedures(input.my_name, b.since, b.asOf, input.limit) : null
    // A conflict that gained no fact in the window was in an earlier briefing: counted, not repeated
    // (in the text and in structuredContent alike; a nothing-new briefing stays a few dozen tokens).
    const since = b.since
    const fresh = b.openConflicts.filter((c) => c.children.some((f) => Date.parse(f.created_at) > since))
    return {
      as_of: toIso(b.asOf),
      since: toIso(b.since),
      decisions: b.decisions,
      retractions: b.retractions,
      open_conflicts: fresh,
      unchanged_conflicts: b.openConflicts.length - fresh.length,
      tasks,
      ...(procedures === null ? {} : { procedures }),
      new_facts: b.newFacts,
      ...(b.imported.length === 0 ? {} : { imported: b.imported }),
      next_cursor: n === null ? null : BriefingCursor.encode({
        since: n.since,
        asOf: n.asOf,
        factAfter: n.factAfter,
        decisionAfter: n.decisionAfter,
        retractionAfter: n.retractionAfter,
        conflictKey: n.conflicts.key,
        conflictParent: n.conflicts.parent,
        conflictChild: n.conflicts.child,
        reader: n.tracked ? readerTag(input.my_name) : 0
      })
    }
  })
})
