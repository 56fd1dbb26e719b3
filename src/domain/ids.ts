import { Schema } from "effect"

const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/**
 * A fact id: a UUID made by Relay (clients only ever pass back ids they were given). Relay makes
 * them lower case; an upper-cased copy from a client is the same id, so it is lower-cased on decode.
 */
export const FactId = Schema.compose(
  Schema.String.pipe(Schema.pattern(uuidPattern, { message: () => "must be a UUID" })),
  Schema.Lowercase
).pipe(
  Schema.brand("FactId"),
  Schema.annotations({ description: "A fact id (UUID) returned by Relay" })
)
export type FactId = typeof FactId.Type

/** Who wrote or decided something: a label the client chooses, not an identity. */
export const AgentName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
    message: () => "must be 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit"
  }),
  Schema.annotations({ description: "Name of the assistant, e.g. claude-desktop or cursor" })
)

export const SessionId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, {
    message: () =>
      "must be 1-128 characters of letters, digits, '.', '_', ':' or '-', starting with a letter or digit"
  }),
  Schema.annotations({ description: "The conversation or thread this fact came from" })
)

/** The fewest characters of a fact id that replies show and that inputs accept in its place. */
export const factIdPrefixMin = 8
