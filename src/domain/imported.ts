import { Schema } from "effect"
import { Decision, Fact, Withdrawal } from "./fact.js"

/** A confirmation an import brought, as a briefing tells it. */
export const ImportedConfirmation = Schema.Struct({
  fact: Fact,
  reason: Schema.String,
  confirmed_by: Schema.String,
  created_at: Schema.String
})

/**
 * One import (`npm run import`) made in a briefing's window, with the decisions, retractions and
 * confirmations it brought. Their own stamps are the file's (often long before the window), so
 * without this a merge could overturn facts that no briefing ever shows.
 */
export const ImportedNote = Schema.Struct({
  import_id: Schema.String,
  /** Who ran it (`--by`), and when it ended. */
  by: Schema.String,
  at: Schema.String,
  file_sha256: Schema.String,
  decisions: Schema.Array(Decision),
  retractions: Schema.Array(Withdrawal),
  confirmations: Schema.Array(ImportedConfirmation),
  /** More than these were brought: relay_get_current_state with status lists them. */
  more: Schema.Boolean
})
export type ImportedNote = typeof ImportedNote.Type
