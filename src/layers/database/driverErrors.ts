import {
  AbortError,
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ErrorReply,
  ReconnectStrategyError,
  RootNodesUnavailableError,
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

const clusterChanging = /^(MOVED|ASK|CLUSTERDOWN)\b/

const replyReasons: ReadonlyArray<readonly [RegExp, DatabaseFailure]> = [
  // Before the generic "timeout" below: the server stopped the query at its TIMEOUT.
  [/^Query timed out/i, "stopped"],
  [/TIMEOUT_MAX/, "over_timeout_cap"],
  [refusedLogin, "refused_login"],
  // A Valkey cluster moving a slot or failing over a shard, as a Sentinel failover: the connection
  // reads the cluster's slots again and the retry finds the shard's primary (the client follows a
  // MOVED or ASK itself; one that reaches Relay came while the cluster was changing).
  [clusterChanging, "unreachable"],
  [/^(LOADING|BUSY|TRYAGAIN|MASTERDOWN)\b|timed out|timeout/i, "busy"],
  // Every write of a fact, task or record is idempotent by its id: a second write of one id (a call
  // retried while its first try was still running) finds the first once it runs again.
  [/unique constraint violation/i, "raced"],
  [
    /^(OOM|MISCONF|NOREPLICAS|READONLY)\b|max pending queries|exceeded capacity|max number of clients/i,
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

/** What the cluster client throws, as plain Errors, when it has no node for a slot or was closed. */
const clusterLost = /^(Cluster closed|Cannot find node|Could not find shard)/

/** The connection failing, by the class of what was thrown (or its errno code): worth another try. */
export const isConnectionError = (error: unknown): boolean =>
  error instanceof RootNodesUnavailableError || (error instanceof Error && clusterLost.test(error.message)) ||
  error instanceof SocketClosedUnexpectedlyError || error instanceof ConnectionTimeoutError ||
  error instanceof ClientClosedError || error instanceof SocketTimeoutError || error instanceof ClientOfflineError ||
  error instanceof DisconnectsClientError || error instanceof ReconnectStrategyError || error instanceof TimeoutError ||
  error instanceof AbortError ||
  (error instanceof Error && connectionCodes.has((error as NodeJS.ErrnoException).code ?? ""))

/** A cluster's reply that its slots are moving or a shard is down: its slots are worth reading again. */
export const isClusterChange = (error: unknown): boolean =>
  error instanceof ErrorReply && clusterChanging.test(error.message)

/** What a server reply says, as a DatabaseError; a reply of no known kind is `refused`. */
const ofReply = (cause: ErrorReply): DatabaseError =>
  new DatabaseError({ reason: reasonOfReply(cause.message) ?? "refused", detail: detailOf(cause) })

/** The server refused the query itself (a Cypher or constraint error): Relay's bug, not an outage. */
class QueryRejected extends Schema.TaggedError<QueryRejected>()("QueryRejected", { message: Schema.String }) {}

/** Relay's own code threw inside a driver call (a TypeError, say): a bug, not an outage. */
class DriverCallFailed extends Schema.TaggedError<DriverCallFailed>()("DriverCallFailed", {
  message: Schema.String
}) {}

/**
 * The one classifier of what a driver call threw. A server reply of a known kind, a failing
 * connection, a replica shortfall and a login refused while connecting (the client may wrap that
 * reply) are failures: `unavailable` to the client, retried when transient. Anything else thrown is
 * a programming error: a defect (logged, `internal`), never retried. A reply of no known kind is
 * `unknownReply`'s to say: for a query it is a rejected statement (a defect, `classifyQuery`); for
 * a command (a setting, an index) the server declining it (`refused`, `classifyCommand`).
 */
const classifyWith =
  (unknownReply: (cause: ErrorReply) => Effect.Effect<never, DatabaseError>) =>
  (cause: unknown): Effect.Effect<never, DatabaseError> => {
    if (cause instanceof ErrorReply) {
      return reasonOfReply(cause.message) === undefined ? unknownReply(cause) : Effect.fail(ofReply(cause))
    }
    const detail = detailOf(cause)
    if (cause instanceof ReplicasShortfall) return Effect.fail(new DatabaseError({ reason: "not_replicated", detail }))
    if (isConnectionError(cause)) return Effect.fail(new DatabaseError({ reason: "unreachable", detail }))
    if (cause instanceof Error && refusedLogin.test(cause.message)) {
      return Effect.fail(new DatabaseError({ reason: "refused_login", detail }))
    }
    return Effect.die(new DriverCallFailed({ message: detail }))
  }

/** For a query: a reply of no known kind is Relay's own statement rejected, a defect. */
export const classifyQuery = classifyWith((cause) =>
  Effect.die(new QueryRejected({ message: `FalkorDB rejected a query: ${cause.message}` }))
)

/** For a command (connect, a setting, an index): a reply of no known kind is the server declining it. */
export const classifyCommand = classifyWith((cause) => Effect.fail(ofReply(cause)))

/** A driver call, its throw sorted by `classify` (commands by default). */
export const driverCall = <A>(
  run: () => Promise<A>,
  classify: (cause: unknown) => Effect.Effect<never, DatabaseError> = classifyCommand
): Effect.Effect<A, DatabaseError> =>
  Effect.tryPromise({ try: run, catch: (cause) => cause }).pipe(Effect.catchAll(classify))

/** Relay's own timer ran out on `what`. */
export const timedOut = (what: string) => () => new DatabaseError({ reason: "timeout", detail: `${what} timed out` })
