import { Schema } from "effect"

/**
 * The embedded FalkorDB server could not be found, started, joined or stopped.
 * `message` is one sentence meant for the user: it never carries the password.
 */
export class EmbeddedServerError extends Schema.TaggedError<EmbeddedServerError>()("EmbeddedServerError", {
  message: Schema.String
}) {}

/** The failure of one step, with the sentence to show. */
export const fail = (message: string) => new EmbeddedServerError({ message })
