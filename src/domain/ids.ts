import { Schema } from "effect"

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A fact id: a UUID made by Relay (clients only ever pass back ids they were given). */
export const FactId = Schema.String.pipe(
  Schema.pattern(uuidPattern, { message: () => "must be a UUID" }),
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
