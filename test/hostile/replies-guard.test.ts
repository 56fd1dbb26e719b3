import { expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Option, Ref, Schema } from "effect"
import { DatabaseError } from "../../src/domain/errors.js"
import { replyMaxBytes } from "../../src/domain/paging.js"
import { callTool, internalMessage } from "../../src/mcp/callTool.js"
import { ToolCall } from "../../src/services/ToolCall.js"
import { type AnyTool, defineTool, readOnly } from "../../src/tools/Tool.js"
import { modelTestLayer } from "../support/modelLayer.js"

/**
 * The last lines of defence at the edge: whatever a tool returns, no reply over 1 MiB of JSON is sent
 * (it would close the client's connection); the call answers `internal` and the log says why.
 * Every list is paged well under that (see the other replies-* tests), so only a list that escaped
 * its page could reach this. And structuredContent is the output encoded with the tool's output
 * Schema: what the listed outputSchema promises and nothing more; an output the Schema refuses is
 * Relay's bug, `internal`, with the details in the log only.
 */
const returning = (text: string) =>
  defineTool({
    name: "relay_test_big",
    description: "test",
    annotations: readOnly("test"),
    input: Schema.Struct({}),
    output: Schema.Struct({ text: Schema.String }),
    render: (o) => [o.text],
    handler: () => Effect.succeed({ text })
  })

const shaped = (output: unknown) =>
  defineTool({
    name: "relay_test_shape",
    description: "test",
    annotations: readOnly("test"),
    input: Schema.Struct({}),
    output: Schema.Struct({ count: Schema.NumberFromString }),
    render: (o) => [`count ${o.count}`],
    handler: () => Effect.succeed(output as { count: number })
  })

const call = (tool: AnyTool) =>
  Effect.gen(function*() {
    const logs: Array<string> = []
    const logger = Logger.make(({ message }) => logs.push(String(message)))
    const result = yield* callTool(tool, {}).pipe(
      // The test tool reads no store: the pure model's, so nothing behind this test needs a database.
      Effect.provide(Layer.merge(modelTestLayer, Logger.replace(Logger.defaultLogger, logger)))
    )
    return { result, logs }
  })
const run = (text: string) => call(returning(text))

it.effect("a reply over 1 MiB is never sent: internal, and the log names the tool and the size", () =>
  Effect.gen(function*() {
    // The text block repeats the output, so ~600 KB of output makes a reply of ~1.2 MB.
    const { logs, result } = yield* run("x".repeat(600 * 1024))
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toEqual({ error: { code: "internal", message: internalMessage } })
    expect(JSON.stringify(result).length).toBeLessThan(1000)
    expect(logs.some((l) => /^relay_test_big: reply of \d+ bytes over the 1048576 byte cap/.test(l))).toBe(true)
  }))

it.effect("a reply under the cap is sent whole", () =>
  Effect.gen(function*() {
    const { logs, result } = yield* run("y".repeat(400 * 1024))
    expect(result.isError).toBeUndefined()
    expect(result.structuredContent).toEqual({ text: "y".repeat(400 * 1024) })
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(replyMaxBytes)
    expect(logs).toEqual([])
  }))

it.effect("structuredContent is the output encoded: the Schema's wire form, fields it does not list left out", () =>
  Effect.gen(function*() {
    const { result } = yield* call(shaped({ count: 3, internal_note: "not for the client" }))
    expect(result.isError).toBeUndefined()
    expect(result.structuredContent).toEqual({ count: "3" })
    expect(result.content[0]?.text.split("\n").slice(1)).toEqual(["count 3"])
  }))

it.effect("an output its Schema refuses is internal, and the log says which tool", () =>
  Effect.gen(function*() {
    const { logs, result } = yield* call(shaped({ count: "three" }))
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toEqual({ error: { code: "internal", message: internalMessage } })
    expect(JSON.stringify(result)).not.toContain("three")
    expect(logs.some((l) => l.startsWith("relay_test_shape: internal error"))).toBe(true)
  }))

/**
 * What a tool leaves for after its reply (a briefing's cursor move) runs only once the reply is ready
 * to send: a reply refused at the cap moves nothing, and a move that fails turns the reply into its
 * failure (the page is not served, so the reader sees it again).
 */
const committing = (text: string, moved: Array<string>, fails = false) =>
  defineTool({
    name: "relay_test_commit",
    description: "test",
    annotations: readOnly("test"),
    input: Schema.Struct({}),
    output: Schema.Struct({ text: Schema.String }),
    render: (o) => [o.text],
    handler: () =>
      Effect.gen(function*() {
        const call = yield* ToolCall
        const move = fails
          ? Effect.fail(new DatabaseError({ reason: "refused", detail: "gone" }))
          : Effect.sync(() => void moved.push(text.slice(0, 3)))
        yield* Ref.set(call.afterReply!, Option.some(move))
        return { text }
      })
  })

it.effect("a reply refused at the cap runs nothing after it; one sent runs it once; a failed one answers unavailable", () =>
  Effect.gen(function*() {
    const moved: Array<string> = []
    const big = yield* call(committing("big".repeat(250 * 1024), moved))
    expect(big.result.isError).toBe(true)
    expect(moved).toEqual([])
    const small = yield* call(committing("small", moved))
    expect(small.result.isError).toBeUndefined()
    expect(moved).toEqual(["sma"])
    const failed = yield* call(committing("fails", moved, true))
    expect(failed.result.isError).toBe(true)
    expect((failed.result.structuredContent as { error: { code: string } }).error.code).toBe("unavailable")
    expect(moved).toEqual(["sma"])
  }))
