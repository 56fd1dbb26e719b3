import { Effect } from "effect"
import { SaveFactInput } from "../domain/inputs.js"
import { SaveFactOutput } from "../domain/outputs.js"
import { currentBudget, fitFromEnd, replyCost } from "../domain/paging.js"
import { requestFactId } from "../domain/requestId.js"
import { FactStore } from "../services/FactStore.js"
import { SecretScanner } from "../services/SecretScanner.js"
import { ToolCall } from "../services/ToolCall.js"
import { saveProcedureVersion } from "./procedureSave.js"
import { renderSaveFact } from "./render/writes.js"
import { defineTool } from "./Tool.js"

/** A suggested link's text as the reply gives it: cut at 80 characters (its id reads it whole). */
const shortText = (text: string) => text.length > 80 ? `${text.slice(0, 79)}…` : text

export const saveFact = defineTool({
  // A procedure's checks: its lessons make them (relay_record_run); an author may give some (tokens).
  unlisted: ["preconditions"],
  name: "relay_save_fact",
  description: "Save a fact (never edited). With a parent give kind; supersedes + reason replaces one",
  annotations: {
    title: "Save a fact",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false
  },
  input: SaveFactInput,
  output: SaveFactOutput,
  render: renderSaveFact,
  handler: Effect.fn("relay/tools/relay_save_fact")(function*(input) {
    const content = input.content.trim()
    const scanner = yield* SecretScanner
    yield* scanner.check("content", content)
    // A fact named twice counts once; the first named is the parent one-parent replies show.
    const parents = input.builds_on === undefined ? [] : [...new Set(input.builds_on)]
    const reason = input.reason?.trim()
    if (reason !== undefined) yield* scanner.check("reason", reason)
    const call = yield* ToolCall
    const fact = {
      id: input.request_id === undefined ? call.id : requestFactId(input.written_by, input.request_id),
      content,
      writtenBy: input.written_by,
      sessionId: input.session_id,
      parentId: input.parent_fact_id ?? parents[0] ?? null,
      alsoOn: parents.slice(1),
      kind: input.kind ?? null,
      contradicts: input.contradicts ?? [],
      revises: input.supersedes === undefined || reason === undefined ? null : {
        id: input.supersedes,
        reason,
        ...(input.still_holds === undefined ? {} : { stillHolds: input.still_holds })
      }
    }
    // With steps the fact is a procedure (issue 44): its steps are written after it (procedureSave.ts).
    const { procedure, saved } = input.steps === undefined
      ? { procedure: undefined, saved: yield* (yield* FactStore).save(fact) }
      : yield* saveProcedureVersion(fact, {
        steps: input.steps,
        preconditions: input.preconditions ?? null,
        field: "supersedes"
      })
    // The fact has landed: a reply too large for its siblings keeps the most recent that fit (siblings_total stays whole).
    const left = (yield* currentBudget()) - replyCost(saved.fact) -
      (saved.duplicateOf === null ? 0 : replyCost(saved.duplicateOf)) -
      (saved.revision === null ? 0 : replyCost(saved.revision))
    const siblings = saved.forkSiblings.slice(
      saved.forkSiblings.length - fitFromEnd(saved.forkSiblings, () => [], Math.max(left, 0))
    )
    return {
      ...(procedure === undefined ? {} : { procedure }),
      fact: saved.fact,
      fork: siblings.length === 0 || saved.fact.parent_id === null
        ? null
        : { parent_id: saved.fact.parent_id, siblings, siblings_total: saved.siblingsTotal },
      duplicate_of: saved.duplicateOf,
      ...(saved.alsoUnder.length === 0 ? {} : {
        also_under: saved.alsoUnder.map((u) => ({
          parent_id: u.parentId,
          siblings: u.forkSiblings,
          siblings_total: u.siblingsTotal,
          duplicate_of: u.duplicateOf
        }))
      }),
      ...(saved.links.length === 0 ? {} : {
        links: saved.links.map((l) => ({ fact_id: l.id, text: shortText(l.content) }))
      }),
      ...(saved.comparedTotal === 0 ? {} : {
        compared: { siblings: saved.compared, siblings_total: saved.comparedTotal }
      }),
      ...(saved.revision === null ? {} : {
        revision: {
          superseded: saved.revision.fact,
          reason: saved.revision.reason,
          stale: saved.revision.stale,
          stale_total: saved.revision.staleTotal,
          stale_next_cursor: saved.revision.staleNextCursor,
          ...(saved.revision.stillHolds.length === 0 ? {} : { still_holds: saved.revision.stillHolds })
        }
      })
    }
  })
})
