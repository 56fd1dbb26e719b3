import {
  AbortError,
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ErrorReply,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError
} from "@redis/client"
import { Effect, Schema } from "effect"
import { DatabaseError, type DatabaseFailure } from "../../domain/errors.js"
import { ReplicasShortfall } from "./replication.js"

/**
 * The one place that reads what the driver threw. An error reply (`ErrorReply` and its subclasses)
 * is the server speaking: its text says why. Anything else thrown is the connection failing. The
 * original text stays in `detail`, for the log only.
 */
const refusedLogin = /NOAUTH|WRONGPASS|NOPERM|invalid password|invalid username-password/i

const replyReasons: ReadonlyArray<readonly [RegExp, DatabaseFailure]> = [
  // Before the generic "timeout" below: the server stopped the query at its TIMEOUT.
  [/^Query timed out/i, "stopped"],
  [/TIMEOUT_MAX/, "over_timeout_cap"],
  [refusedLogin, "refused_login"],
  [/^(LOADING|BUSY|TRYAGAIN|MASTERDOWN)\b|timed out|timeout/i, "busy"],
  [
    /^(OOM|MISCONF|NOREPLICAS|READONLY|CLUSTERDOWN)\b|max pending queries|exceeded capacity|max number of clients/i,
    "refused"
  ],
  [/empty key|invalid graph/i, "no_graph"],
  [/already indexed|already exists/i, "exists"],
  [/unknown command/i, "no_module"]
]

const reasonOfReply = (message: string): DatabaseFailure | undefined =>
  replyReasons.find(([pattern]) => pattern.test(message))?.[1]

const detailOf = (cause: unknown) =>
  cause instanceof Error ? `${cause.constructor.name}: ${cause.message}` : String(cause)

const connectionCodes = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "ENOENT", "EHOSTUNREACH"])

/** The connection failing, by the class of what was thrown (or its errno code): worth another try. */
export const isConnectionError = (error: unknown): boolean =>
  error instanceof SocketClosedUnexpectedlyError || error instanceof ConnectionTimeoutError ||
  error instanceof ClientClosedError || error instanceof SocketTimeoutError || error instanceof ClientOfflineError ||
  error instanceof DisconnectsClientError || error instanceof ReconnectStrategyError || error instanceof TimeoutError ||
  error instanceof AbortError ||
  (error instanceof Error && connectionCodes.has((error as NodeJS.ErrnoException).code ?? ""))

/** Sorts anything the driver threw into a DatabaseError; a reply of no known kind is `refused`. */
export const classify = (cause: unknown): DatabaseError => {
  const detail = detailOf(cause)
  if (cause instanceof ReplicasShortfall) return new DatabaseError({ reason: "not_replicated", detail })
  if (cause instanceof ErrorReply) {
    return new DatabaseError({ reason: reasonOfReply(cause.message) ?? "refused", detail })
  }
  // A login refused while connecting may come wrapped by the client rather than as the reply itself.
  return new DatabaseError({ reason: refusedLogin.test(detail) ? "refused_login" : "unreachable", detail })
}

/** The server refused the query itself (a Cypher or constraint error): Relay's bug, not an outage. */
class QueryRejected extends Schema.TaggedError<QueryRejected>()("QueryRejected", { message: Schema.String }) {}

/** Relay's own code threw inside a query's callback (a TypeError, say): a bug, not an outage. */
class QueryCallbackFailed extends Schema.TaggedError<QueryCallbackFailed>()("QueryCallbackFailed", {
  message: Schema.String
}) {}

/**
 * For a query, by class: a server reply of a known kind and a failing connection are failures
 * (`unavailable`, retried when transient); a reply of no known kind and anything else thrown (a
 * programming error) are defects: the client sees `internal`, and nothing retries them.
 */
export const classifyQuery = (cause: unknown): Effect.Effect<never, DatabaseError> => {
  if (cause instanceof ErrorReply) {
    return reasonOfReply(cause.message) === undefined
      ? Effect.die(new QueryRejected({ message: `FalkorDB rejected a query: ${cause.message}` }))
      : Effect.fail(classify(cause))
  }
  if (cause instanceof ReplicasShortfall || isConnectionError(cause)) return Effect.fail(classify(cause))
  return Effect.die(new QueryCallbackFailed({ message: detailOf(cause) }))
}

/** Relay's own timer ran out on `what`. */
export const timedOut = (what: string) => () => new DatabaseError({ reason: "timeout", detail: `${what} timed out` })
