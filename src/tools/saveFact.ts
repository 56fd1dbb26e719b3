import { Effect } from "effect"
import { SaveFactInput } from "../domain/inputs.js"
import { SaveFactOutput } from "../domain/outputs.js"
import { requestFactId } from "../domain/requestId.js"
import { FactStore } from "../services/FactStore.js"
import { SecretScanner } from "../services/SecretScanner.js"
import { ToolCall } from "../services/ToolCall.js"
import { defineTool, untrustedNote } from "./Tool.js"

export const saveFact = defineTool({
  name: "relay_save_fact",
  description: "Save one fact, decision or finding to the memory shared by every assistant on this machine. " +
    "Pass parent_fact_id when it builds on an earlier fact (that is its provenance); omit it to start a new thread. " +
    "Returns the saved fact; `fork` lists the 20 latest siblings under the same parent that say something " +
    "different, with siblings_total (null when there are none: then call relay_detect_conflicts to see all disagreements), and `duplicate_of` " +
    "the sibling that already says the same (null when none). Facts are never edited: to change your mind, save a " +
    "new fact and settle it with relay_resolve_conflict. Never save credentials. Send a request_id of your own " +
    "and reuse it when retrying: a save answered `unavailable` may have landed, and a retry with the same " +
    "request_id returns that fact instead of saving it twice. " + untrustedNote,
  annotations: {
    title: "Save a fact",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false
  },
  input: SaveFactInput,
  output: SaveFactOutput,
  handler: Effect.fn("relay_save_fact")(function*(input) {
    const content = input.content.trim()
    const scanner = yield* SecretScanner
    yield* scanner.check("content", content)
    // The labels are free text too: a token pasted as a session id must not land either.
    yield* scanner.check("written_by", input.written_by)
    yield* scanner.check("session_id", input.session_id)
    const call = yield* ToolCall
    const saved = yield* (yield* FactStore).save({
      id: input.request_id === undefined ? call.id : requestFactId(input.written_by, input.request_id),
      content,
      writtenBy: input.written_by,
      sessionId: input.session_id,
      parentId: input.parent_fact_id ?? null
    })
    return {
      fact: saved.fact,
      fork: saved.forkSiblings.length === 0 || saved.fact.parent_id === null
        ? null
        : { parent_id: saved.fact.parent_id, siblings: saved.forkSiblings, siblings_total: saved.siblingsTotal },
      duplicate_of: saved.duplicateOf
    }
  })
})
