import { Schema } from "effect"
import { ThreadInput, ThreadOutput } from "./thread.js"

/**
 * What the thread app (an MCP App, src/apps) draws: a page of a thread with its decisions, and the
 * parents of the page under which an open conflict stands (its forks). Read by the app through the
 * host, never by the model, so its input is the thread read's and its descriptions stay short.
 */
export const ThreadViewInput = ThreadInput

export const ThreadViewOutput = Schema.Struct({
  ...ThreadOutput.fields,
  /** Parents, among this page's facts, with an open conflict under them (relay_detect_conflicts). */
  open_forks: Schema.Array(Schema.String),
  /** When it was read (the server's clock), so the app writes ages as the server sees time. */
  read_at: Schema.String
})
export type ThreadViewOutput = typeof ThreadViewOutput.Type
