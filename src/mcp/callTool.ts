import { Cause, Clock, Effect, Exit, FiberRef, Option, ParseResult, Ref, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { InvalidInput, type ToolError } from "../domain/errors.js"
import type { ErrorCode } from "../domain/errors.js"
import { budgetForTokens, jsonBytes, replyBudget, replyMaxBytes } from "../domain/paging.js"
import { canonicalNames } from "../policies/agentNames.js"
import { applyPolicies } from "../policies/applyPolicies.js"
import { resolveFactIdPrefixes } from "../policies/factIdPrefixes.js"
import { retryTransient } from "../policies/retry.js"
import { scanNames } from "../policies/scanNames.js"
import { withCallBudget } from "../policies/timeout.js"
import { ToolCall } from "../services/ToolCall.js"
import type { AnyTool } from "../tools/Tool.js"
import { compactReply } from "./compactJson.js"
import { pageFor, renderResult } from "./render.js"
import { jsonForm } from "./replyForm.js"
import { echoName, quoteName } from "./rpcErrors.js"
import { ShortIds } from "./shortIds.js"

export interface ToolResult {
  readonly [k: string]: unknown
  readonly content: Array<{ type: "text"; text: string }>
  readonly structuredContent: Record<string, unknown>
  readonly isError?: boolean
}

/**
 * Effect's default messages end in ", actual <the value>", which would echo whatever was sent (a
 * credential pasted into the wrong field, a whole prompt) back to the model and into logs. Keep
 * only what was expected, in words.
 */
const withoutValue = (message: string): string => {
  const match = /^Expected ([\s\S]*?), actual [\s\S]*$/.exec(message)
  if (match === null) return message
  const expected = match[1] ?? ""
  if (expected === "never") return "is not a field of this tool"
  if (expected.startsWith("{")) return "must be an object with this tool's fields"
  if (/^(string|number|boolean)$/.test(expected)) return `must be a ${expected}`
  if (/^an? [a-z ]+$/.test(expected)) return `must be ${expected}`
  return "has the wrong type"
}

/** Names the first offending field and the rule it broke; never echoes the value. */
export const describeParseError = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const first = issues[0]
  if (first === undefined) return "the input does not match the tool's schema"
  // A field name is the caller's text too: name it, but not at any length nor raw (echoName).
  const path = first.path.map(String).join(".")
  const field = path === "" ? "input" : echoName(path)
  const message = first._tag === "Unexpected" ?
    "is not a field of this tool" :
    first._tag === "Missing"
    ? "is required"
    : withoutValue(first.message)
  return `${field}: ${message}`
}

/** A call's `max_tokens`, where its tool has one, becomes the budget every list of the call is cut to. */
const withTokenBudget = <A, E, R>(input: unknown, handler: Effect.Effect<A, E, R>) => {
  const maxTokens = (input as { readonly max_tokens?: unknown }).max_tokens
  return typeof maxTokens === "number" ? Effect.locally(handler, replyBudget, budgetForTokens(maxTokens)) : handler
}

/**
 * structuredContent is the output encoded with the tool's output Schema, the shape its listed
 * outputSchema promises. An output the Schema refuses is a bug in Relay: a defect, so `internal`.
 * (Schema keeps the parser it derives for a Schema; a cache here bought ~2 µs a call.)
 */
const encodeOutput = (tool: AnyTool) => (output: unknown) =>
  Schema.encodeUnknown(tool.output, { errors: "first" })(output).pipe(
    Effect.orDie,
    Effect.map((encoded) => ({ output, encoded: encoded as Record<string, unknown> }))
  )

export const decodeInput = (tool: AnyTool, args: unknown) =>
  Schema.decodeUnknown(tool.input, { onExcessProperty: "error", errors: "first" })(args ?? {}).pipe(
    Effect.mapError((e) => new InvalidInput({ message: describeParseError(e) }))
  )

export const failure = (code: ErrorCode, message: string): ToolResult => ({
  content: [{ type: "text", text: `${code}: ${message}` }],
  structuredContent: { error: { code, message } },
  isError: true
})

const unavailableMessage = "the memory database is unavailable right now; try again shortly"
const notReplicatedMessage = "the write may have landed: the primary applied it but too few replicas confirmed " +
  "it in time (RELAY_MIN_REPLICAS); read it back, or retry with the same request_id, which returns what landed"
/**
 * A write cut short (the database paused, the connection lost, the call's budget spent) may have
 * been applied after Relay stopped waiting; only a write FalkorDB itself stopped at its TIMEOUT is
 * known to be undone, and the two are not told apart here. The request_id makes the retry safe.
 */
const unavailableWriteMessage = "the memory database is unavailable right now; this write may still have landed: " +
  "retry shortly with the same request_id, which returns what landed instead of writing it twice"
const newerSchemaMessage = "this memory was written by a newer version of Relay, so this one only reads it; " +
  "nothing was written: upgrade Relay to write to it"
export const internalMessage = "Relay hit an internal error; the details are in its log"

/** A tool failure as the client sees it: the contract code and a message with nothing internal in it. */
export const toFailureResult = (tool: AnyTool | null, error: ToolError): ToolResult =>
  error._tag !== "DatabaseError" ?
    failure(error.code, error.message) :
    error.reason === "not_replicated" ?
    failure("unavailable", notReplicatedMessage) :
    error.reason === "newer_schema" ?
    failure("unavailable", newerSchemaMessage) :
    failure(
      "unavailable",
      tool === null || tool.annotations.readOnlyHint ? unavailableMessage : unavailableWriteMessage
    )
/**
 * A call to a name that is no tool: `invalid_input`, but through the same policies as a real call,
 * so it spends the rate limit (before, 2,000 of them in 0.7 s cost nothing). The name is the
 * caller's text: only a short prefix of it is echoed.
 */
export const callUnknownTool = (name: string) => callRefused("tool", `name: there is no tool called ${quoteName(name)}`)

/** A request refused as `invalid_input` before any tool runs (an unknown tool, prompt or resource), through the policies. */
export const callRefused = (what: string, message: string) =>
  Effect.fail(new InvalidInput({ message })).pipe(
    applyPolicies,
    Effect.catchAll((e) => Effect.as(Effect.logInfo(`unknown ${what}: ${e.code}`), toFailureResult(null, e)))
  )

/**
 * The last line of defence on size: a reply over replyMaxBytes of JSON would close the client's
 * connection (the SDK's read cap), so it is never sent. Every list is paged under a smaller budget
 * (domain/paging.ts), so this answering `internal` means a list escaped its page.
 */
export const boundedReply = (tool: string, result: ToolResult): Effect.Effect<ToolResult> => {
  // The JSON-RPC envelope around the result ({"jsonrpc":"2.0","id":...}) is well under this.
  const bytes = jsonBytes(result) + 1024
  return bytes <= replyMaxBytes
    ? Effect.succeed(result)
    : Effect.as(
      Effect.logError(`${tool}: reply of ${bytes} bytes over the ${replyMaxBytes} byte cap; answered internal`),
      failure("internal", internalMessage)
    )
}

/** Runs what the tool left for after its reply (ToolCall.afterReply), under the same retry and time budget. */
const runAfterReply = (pending: Ref.Ref<Option.Option<Effect.Effect<void, ToolError>>>) =>
  Effect.flatMap(
    Ref.get(pending),
    Option.match({
      onNone: () => Effect.void,
      onSome: (commit) => withCallBudget(retryTransient(commit))
    })
  )

/**
 * Runs one call through decoding, the policies and the tool, and turns its Exit into an MCP result.
 * Details of database failures and defects go to the stderr log only. The call's span is the
 * handler's own (Effect.fn, named after the tool); a second span around it cost ~14 us a call.
 * What the tool left for after its reply (a briefing's cursor move) runs only once the reply is
 * built and within the size cap, and not when the client cancelled the request by then (`signal`:
 * the SDK then sends no reply); if it fails, the call answers its failure instead of the reply.
 */
export const callTool = (tool: AnyTool, args: unknown, signal?: AbortSignal) =>
  Effect.flatMap(Ref.make(Option.none<Effect.Effect<void, ToolError>>()), (afterReply) =>
    decodeInput(tool, args).pipe(
      Effect.flatMap(scanNames(tool)),
      Effect.flatMap(canonicalNames(tool)),
      Effect.flatMap(resolveFactIdPrefixes(tool)),
      Effect.flatMap((input) => withTokenBudget(input, tool.handler(input))),
      (call) => applyPolicies(call, tool.wholeGraph === true),
      Effect.provideService(ToolCall, { id: randomUUID(), afterReply }),
      Effect.flatMap(encodeOutput(tool)),
      Effect.flatMap(({ encoded, output }) =>
        Effect.flatMap(Effect.zip(Clock.currentTimeMillis, FiberRef.get(jsonForm)), ([now, json]) => {
          // One set of short ids for both; the JSON's Page is its own (the text's marks the facts it has written out).
          const ids = ShortIds.in(output)
          const text = renderResult(tool, output, now, pageFor(output, now, ids))
          return boundedReply(tool.name, {
            content: [{ type: "text", text }],
            structuredContent: json === "compact" ? compactReply(encoded, pageFor(output, now, ids)) : encoded
          })
        })
      ),
      Effect.tap((result) =>
        result.isError === true
          ? Effect.void
          : signal?.aborted === true
          // The client cancelled (an SDK timeout does): the SDK sends no reply, so nothing moves.
          ? Effect.logInfo(`${tool.name}: cancelled by the client; what it left for after its reply was not done`)
          : runAfterReply(afterReply)
      ),
      Effect.exit,
      Effect.flatMap((exit) =>
        Exit.match(exit, {
          onSuccess: (result): Effect.Effect<ToolResult> => Effect.succeed(result),
          onFailure: (cause) => {
            const error = Cause.failureOption(cause)
            if (Option.isSome(error)) {
              const e = error.value
              const log = e._tag === "DatabaseError"
                ? Effect.logError(`${tool.name}: database unavailable`).pipe(Effect.annotateLogs("detail", e.detail))
                : Effect.logInfo(`${tool.name}: ${e.code}`)
              return Effect.as(log, toFailureResult(tool, e))
            }
            return Effect.as(
              Effect.logError(`${tool.name}: internal error`, cause),
              failure("internal", internalMessage)
            )
          }
        })
      )
    ))
