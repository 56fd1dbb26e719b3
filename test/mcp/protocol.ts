import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { afterAll, afterEach, beforeAll, expect } from "vitest"
import { untrustedHeader } from "../../src/mcp/render.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import type { OutputOf, ToolCallResult } from "../support/toolOutputs.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

/**
 * Checks every MCP result against the contract's shape rules, independently of the SDK client:
 * structuredContent validates against the tool's declared outputSchema (compiled here with Ajv),
 * there is exactly one text block, a success starts with the fixed untrusted-data sentence and
 * shows every fact's content quoted, and a failure's text is `<code>: <message>`.
 */
export const checkedCaller = async (relay: RelayClient) => {
  const { tools } = await relay.client.listTools()
  const ajv = new AjvJsonSchemaValidator()
  const validators = new Map(tools.map((t) => [t.name, ajv.getValidator(t.outputSchema as never)]))

  const call = async <N extends string>(
    name: N,
    args: Record<string, unknown> = {}
  ): Promise<ToolCallResult<OutputOf<N>>> => {
    const result = await relay.call(name, args)
    const validate = validators.get(name)
    if (validate !== undefined) {
      const verdict = validate(result.structuredContent)
      expect(verdict.valid, `${name} structuredContent vs outputSchema: ${verdict.errorMessage}`).toBe(true)
    }
    expect(result.content).toHaveLength(1)
    const text = result.content[0]?.text ?? ""
    expect(result.content[0]?.type).toBe("text")
    if (result.isError === true) {
      const { code, message } = errorOf(result)
      expect(text).toBe(`${code}: ${message}`)
    } else {
      expect(text.split("\n")[0]).toBe(untrustedHeader)
      expect(text.split("\n").filter((l) => l === untrustedHeader)).toHaveLength(1)
      for (const content of factContents(shownInText(name, result.structuredContent))) {
        expect(text).toContain(JSON.stringify(content))
      }
    }
    return result
  }

  /** The result of a call that must succeed. */
  const ok = async <N extends string>(name: N, args: Record<string, unknown> = {}): Promise<OutputOf<N>> => {
    const result = await call(name, args)
    // The Relay's own log names the cause behind a failure the model sees only as a code.
    expect(result.isError, `${name}: ${result.content[0]?.text}\n${relay.stderr().slice(-2000)}`).toBeFalsy()
    return outputOf(result)
  }

  /** The error of a call that must fail. */
  const fails = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await call(name, args)
    expect(result.isError, `${name} should have failed`).toBe(true)
    return errorOf(result)
  }

  return { tools, validators, call, ok, fails, text: (r: ToolCallResult) => r.content[0]?.text ?? "" }
}

export type ToolListing = Array<Tool>

/**
 * What the text block writes out: everything, but in a briefing the open conflicts that gained no
 * child in its window (an earlier briefing showed them; the text only counts them).
 */
const shownInText = (name: string, result: unknown): unknown => {
  if (name !== "relay_get_briefing") return result
  const briefing = result as OutputOf<"relay_get_briefing">
  return {
    ...briefing,
    open_conflicts: briefing.open_conflicts.filter((c) =>
      c.children.some((f) => Date.parse(f.created_at) > Date.parse(briefing.since))
    )
  }
}

/** Every fact-shaped object's content, anywhere in a result. */
export const factContents = (value: unknown): Array<string> => {
  if (Array.isArray(value)) return value.flatMap(factContents)
  if (typeof value !== "object" || value === null) return []
  const record = value as Record<string, unknown>
  const own = typeof record.content === "string" && typeof record.status === "string" ? [record.content] : []
  return [...own, ...Object.values(record).flatMap(factContents)]
}

/**
 * For tests that each start their own server on a graph of their own, so any one runs alone:
 * `start()` connects one (its calls checked by checkedCaller); after each test it is closed and
 * its graph deleted.
 */
export const freshRelayPerTest = () => {
  let admin: Admin | undefined
  let current: RelayClient | undefined
  beforeAll(async () => {
    admin = await connectAdmin()
  })
  afterEach(async () => {
    const done = current
    current = undefined
    await done?.close()
    if (done !== undefined) await admin?.command(["GRAPH.DELETE", done.graph]).catch(() => undefined)
  })
  afterAll(async () => {
    await admin?.close()
  })
  return {
    start: async () => {
      current = await connectRelay()
      return { relay: current, mcp: await checkedCaller(current) }
    },
    admin: () => admin!
  }
}
