import { Schema } from "effect"

/**
 * The failures a tool can answer with. Each carries its contract code and a message that is
 * safe to show a model: it names the field or rule and never holds driver text, hosts or Cypher.
 */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  message: Schema.String
}) {
  readonly code = "invalid_input"
}

export class FactNotFound extends Schema.TaggedError<FactNotFound>()("FactNotFound", {
  message: Schema.String
}) {
  readonly code = "fact_not_found"
}

export class SecretDetected extends Schema.TaggedError<SecretDetected>()("SecretDetected", {
  message: Schema.String
}) {
  readonly code = "secret_detected"
}

export class InvalidResolution extends Schema.TaggedError<InvalidResolution>()("InvalidResolution", {
  message: Schema.String
}) {
  readonly code = "invalid_resolution"
}

export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retryAfterMillis: Schema.Number
}) {
  readonly code = "rate_limited"
}

/**
 * The caller is known but may not do this: a read-only token asked to write, or a client over HTTP
 * sent an author name other than its token's.
 */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  message: Schema.String
}) {
  readonly code = "forbidden"
}

/**
 * The database could not be reached or failed. `transient` marks the failures worth retrying
 * (connection lost, timeout); `detail` is for the stderr log only and never reaches a client.
 */
export class DatabaseError extends Schema.TaggedError<DatabaseError>()("DatabaseError", {
  transient: Schema.Boolean,
  detail: Schema.String
}) {
  readonly code = "unavailable"
}

export type ToolError =
  | InvalidInput
  | FactNotFound
  | SecretDetected
  | InvalidResolution
  | RateLimited
  | Forbidden
  | DatabaseError

export const ErrorCode = Schema.Literal(
  "invalid_input",
  "fact_not_found",
  "secret_detected",
  "invalid_resolution",
  "rate_limited",
  "forbidden",
  "unavailable",
  "internal"
)
export type ErrorCode = typeof ErrorCode.Type
