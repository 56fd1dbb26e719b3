import { describe, expect, it } from "@effect/vitest"
import {
  ConnectionTimeoutError,
  ErrorReply,
  RootNodesUnavailableError,
  SimpleError,
  SocketClosedUnexpectedlyError
} from "@redis/client"
import { Cause, Effect, Exit } from "effect"
import type { DatabaseError } from "../../src/domain/errors.js"
import { classifyCommand, classifyQuery } from "../../src/layers/database/driverErrors.js"
import { ReplicasShortfall } from "../../src/layers/database/replication.js"

/** The failure `classify` makes of `cause`; throws when it made a defect instead. */
const failureOf = (classify: (cause: unknown) => Effect.Effect<never, DatabaseError>, cause: unknown) => {
  const exit = Effect.runSyncExit(classify(cause))
  const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
  if (failure?._tag !== "Some") throw new Error(`not a failure: ${String(cause)}`)
  return failure.value
}

/** What the driver throws is sorted by its class first, and a reply by what the server said. */
describe("driver errors", () => {
  it.each(
    [
      [new SimpleError("LOADING Valkey is loading the dataset in memory"), "busy", true],
      [new SimpleError("MASTERDOWN Link with MASTER is down"), "busy", true],
      [new ErrorReply("Query timed out"), "stopped", false],
      [new ErrorReply("WRONGPASS invalid username-password pair or user is disabled."), "refused_login", false],
      [new ErrorReply("READONLY You can't write against a read only replica."), "refused", false],
      [new ErrorReply("Max pending queries exceeded"), "refused", false],
      [new ErrorReply("ERR Invalid graph operation on empty key"), "no_graph", false],
      [new ErrorReply("ERR unknown command 'GRAPH.QUERY'"), "no_module", false],
      [
        new ErrorReply("The query TIMEOUT parameter value cannot exceed the TIMEOUT_MAX configuration parameter value"),
        "over_timeout_cap",
        false
      ],
      [new SocketClosedUnexpectedlyError(), "unreachable", true],
      [new ConnectionTimeoutError(), "unreachable", true],
      [Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }), "unreachable", true],
      // A Valkey cluster changing under a call: as a Sentinel failover, transient.
      [new SimpleError("MOVED 3999 127.0.0.1:6381"), "unreachable", true],
      [new SimpleError("ASK 3999 127.0.0.1:6381"), "unreachable", true],
      [new SimpleError("CLUSTERDOWN The cluster is down"), "unreachable", true],
      [new SimpleError("TRYAGAIN Multiple keys request during rehashing of slot"), "busy", true],
      [new RootNodesUnavailableError(), "unreachable", true],
      [new Error("Cannot find node 127.0.0.1:6381"), "unreachable", true],
      [
        new ReplicasShortfall({ message: "replication: 0 of 1 replicas confirmed the write within 500 ms" }),
        "not_replicated",
        false
      ]
    ] as const
  )("%s is %s", (cause, reason, transient) => {
    const error = failureOf(classifyCommand, cause)
    expect(error.reason).toBe(reason)
    expect(error.transient).toBe(transient)
    // The driver's text is kept for the log.
    expect(error.detail).toContain(cause.message)
  })

  it("a programming error in any driver call is a defect, not an outage; an unknown reply to a command is refused", () => {
    for (const classify of [classifyCommand, classifyQuery]) {
      const bug = Effect.runSyncExit(classify(new TypeError("Cannot read properties of undefined (reading 'data')")))
      expect(Exit.isFailure(bug) && Cause.isDie(bug.cause) && !Cause.isFailType(bug.cause)).toBe(true)
    }
    expect(failureOf(classifyCommand, new ErrorReply("ERR unknown subcommand 'GET'")).reason).toBe("refused")
    // A statement that met the id's unique constraint raced a try of the same call: run again, it
    // finds what landed (seen when a save's first try outran its client's timeout on a new graph).
    const raced = failureOf(classifyQuery, new ErrorReply("unique constraint violation on node of type Fact"))
    expect([raced.reason, raced.transient]).toEqual(["raced", true])
    // Wrapped by the client while connecting, a refused login is still named as one.
    expect(failureOf(classifyCommand, new Error("WRONGPASS invalid username-password pair")).reason).toBe(
      "refused_login"
    )
  })

  it("a reply of no known kind to a query is a defect (the client sees internal), not an outage", () => {
    const exit = Effect.runSyncExit(classifyQuery(new ErrorReply("errMsg: Invalid input 'x': expected MATCH")))
    expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
    const outage = Effect.runSyncExit(classifyQuery(new SocketClosedUnexpectedlyError()))
    expect(Exit.isFailure(outage) && Cause.isFailType(outage.cause)).toBe(true)
  })

  it("a programming error inside a query's callback is internal and never retried; a lost connection is transient", () => {
    const bug = Effect.runSyncExit(classifyQuery(new TypeError("Cannot read properties of undefined (reading 'data')")))
    expect(Exit.isFailure(bug) && Cause.isDie(bug.cause) && !Cause.isFailType(bug.cause)).toBe(true)
    for (
      const cause of [new ConnectionTimeoutError(), Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })]
    ) {
      const exit = Effect.runSyncExit(classifyQuery(cause))
      expect(Exit.isFailure(exit) && Cause.isFailType(exit.cause)).toBe(true)
      const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
      expect(failure?._tag === "Some" && failure.value.transient && failure.value.reason).toBe("unreachable")
    }
  })
})
