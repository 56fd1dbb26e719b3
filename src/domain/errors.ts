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

/** The one wording of a missing fact: the field that named it and the id (the model's own input). */
export const noFactWithId = (field: string, id: string | null, suffix = "") =>
  new FactNotFound({ message: `${field}: no fact with id ${id}${suffix}` })

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
 * The memory (a team workspace's graph, or the local one) holds as many facts or content bytes as
 * its operator allows (RELAY_MAX_FACTS, RELAY_MAX_CONTENT_BYTES): nothing was written.
 */
export class MemoryFull extends Schema.TaggedError<MemoryFull>()("MemoryFull", {
  message: Schema.String
}) {
  readonly code = "memory_full"
}

/** A claim of a task someone else holds on a live lease: names who and until when. */
export class AlreadyClaimed extends Schema.TaggedError<AlreadyClaimed>()("AlreadyClaimed", {
  message: Schema.String
}) {
  readonly code = "already_claimed"
}

/** A heartbeat or finish whose fencing token is no longer the task's: nothing was written. */
export class LeaseLost extends Schema.TaggedError<LeaseLost>()("LeaseLost", {
  message: Schema.String
}) {
  readonly code = "lease_lost"
}

export class TaskNotFound extends Schema.TaggedError<TaskNotFound>()("TaskNotFound", {
  message: Schema.String
}) {
  readonly code = "task_not_found"
}

/**
 * Why the database failed, sorted once where the driver's error is caught (src/layers/database/driverErrors.ts):
 * callers decide on this, never on the driver's text.
 */
export const DatabaseFailure = Schema.Literal(
  /** No connection: refused, lost, closed, or not made in time. */
  "unreachable",
  /** Relay's own timer ran out (a query, the connect, the call's budget). */
  "timeout",
  /** The server asks to come back later: loading its data, busy, failing over. */
  "busy",
  /**
   * A write met the unique constraint on an id a write of the same id hit first (a call retried
   * while its first try still ran): a retry finds what landed and answers it.
   */
  "raced",
  /** The server stopped the query at its TIMEOUT (it had its whole allowance already). */
  "stopped",
  /** The server refused the password or the user. */
  "refused_login",
  /** The server refuses work in its state: full, read-only, a replica, too many clients or queries. */
  "refused",
  /** Written on the primary, but too few replicas confirmed it (RELAY_MIN_REPLICAS). */
  "not_replicated",
  /** The graph does not exist yet. */
  "no_graph",
  /** What was to be made exists already (an index). */
  "exists",
  /** The server has no FalkorDB module. */
  "no_module",
  /** The server refuses the query's TIMEOUT (above its TIMEOUT_MAX). */
  "over_timeout_cap",
  /** The connection layer was already shut down. */
  "shut_down",
  /** The graph was written by a newer Relay (its schema version): read, never written here. */
  "newer_schema"
)
export type DatabaseFailure = typeof DatabaseFailure.Type

const transientFailures: ReadonlySet<DatabaseFailure> = new Set(["unreachable", "timeout", "busy", "raced"])

/**
 * The database could not be reached or failed. `transient` marks the failures worth retrying
 * (see `transientFailures`); `detail` is for the stderr log only and never reaches a client.
 */
export class DatabaseError extends Schema.TaggedError<DatabaseError>()("DatabaseError", {
  reason: DatabaseFailure,
  detail: Schema.String
}) {
  readonly code = "unavailable"
  get transient(): boolean {
    return transientFailures.has(this.reason)
  }
}

export type ToolError =
  | InvalidInput
  | FactNotFound
  | SecretDetected
  | InvalidResolution
  | RateLimited
  | Forbidden
  | MemoryFull
  | AlreadyClaimed
  | LeaseLost
  | TaskNotFound
  | DatabaseError

export const ErrorCode = Schema.Literal(
  "invalid_input",
  "fact_not_found",
  "secret_detected",
  "invalid_resolution",
  "rate_limited",
  "forbidden",
  "memory_full",
  "already_claimed",
  "lease_lost",
  "task_not_found",
  "unavailable",
  "internal"
)
export type ErrorCode = typeof ErrorCode.Type
