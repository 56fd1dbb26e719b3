import { expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Schema } from "effect"
import { makeRateLimiter } from "../../src/layers/RateLimiterLive.js"
import { callTool, internalMessage } from "../../src/mcp/callTool.js"
import { FactStore } from "../../src/services/FactStore.js"
import { RateLimiter } from "../../src/services/RateLimiter.js"
import { SecretScanner } from "../../src/services/SecretScanner.js"
import { defineTool, readOnly } from "../../src/tools/Tool.js"

/**
 * structuredContent is the tool's output encoded with its output Schema: what the listed
 * outputSchema promises and nothing more. An output the Schema refuses is Relay's bug: `internal`,
 * with the details in the log only.
 */
const returning = (output: unknown) =>
  defineTool({
    name: "relay_test_shape",
    description: "test",
    annotations: readOnly("test"),
    input: Schema.Struct({}),
    output: Schema.Struct({ count: Schema.NumberFromString }),
    render: (o) => [`count ${o.count}`],
    handler: () => Effect.succeed(output as { count: number })
  })

const run = (output: unknown) =>
  Effect.gen(function*() {
    const logs: Array<string> = []
    const logger = Logger.make(({ message }) => logs.push(String(message)))
    const result = yield* callTool(returning(output), {}).pipe(
      Effect.provide(
        Layer.merge(Layer.effect(RateLimiter, makeRateLimiter(1000)), Logger.replace(Logger.defaultLogger, logger))
      ),
      // The test tool uses neither: no database behind this test.
      Effect.provideService(FactStore, {} as FactStore["Type"]),
      Effect.provideService(SecretScanner, {} as SecretScanner["Type"])
    )
    return { result, logs }
  })

it.effect("structuredContent is the output encoded: the Schema's wire form, fields it does not list left out", () =>
  Effect.gen(function*() {
    const { result } = yield* run({ count: 3, internal_note: "not for the client" })
    expect(result.isError).toBeUndefined()
    expect(result.structuredContent).toEqual({ count: "3" })
    expect(result.content[0]?.text.split("\n").slice(1)).toEqual(["count 3"])
  }))

it.effect("an output its Schema refuses is internal, and the log says which tool", () =>
  Effect.gen(function*() {
    const { logs, result } = yield* run({ count: "three" })
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toEqual({ error: { code: "internal", message: internalMessage } })
    expect(JSON.stringify(result)).not.toContain("three")
    expect(logs.some((l) => l.startsWith("relay_test_shape: internal error"))).toBe(true)
  }))
