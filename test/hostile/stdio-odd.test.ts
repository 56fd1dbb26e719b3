import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import { inject } from "vitest"
import { topLevelId } from "../../src/mcp/jsonShape.js"
import { testGraphName } from "../support/testLayer.js"
import { type RawRelay, spawnRelay } from "./stdioProcess.js"

/**
 * Odd inputs on stdio (issue 40): arguments nested 5,000 deep answered `internal` (the decoder's
 * stack overflowed); params that are nested arrays got -32600 with `id: null`, so the client waited
 * for its own id forever; unknown field names came back raw, newlines and bidi overrides included.
 */
describe("odd inputs on stdio", () => {
  let raw: RawRelay
  /** One line as sent: too deep for JSON.stringify on the test's stack. */
  const line = (text: string) => raw.child.stdin.write(text + "\n")
  const call = (id: number | string, args: string, name = "relay_save_fact") =>
    line(
      `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":${
        JSON.stringify(name)
      },"arguments":${args}}}`
    )

  beforeAll(async () => {
    raw = spawnRelay(inject("falkordb"), testGraphName("stdio_odd"))
    await raw.initialize()
  }, 30_000)
  afterAll(() => {
    raw.child.kill("SIGKILL")
  })

  it("refuses arguments nested 5,000 deep as invalid_input with the request's id, then serves the next call", async () => {
    call(1, `{"content":${"[".repeat(5000)}"x"${"]".repeat(5000)},"written_by":"a","session_id":"s"}`)
    call(2, `${"{\"a\":".repeat(5000)}1${"}".repeat(5000)}`)
    for (const id of [1, 2]) {
      const answer = await raw.reply(id)
      expect(answer.error?.code).toBe(ErrorCode.InvalidRequest)
      expect(answer.error?.message).toMatch(/^invalid_input: the message nests arrays and objects more than 32 deep/)
      expect((answer.error as { data?: unknown }).data).toEqual({ code: "invalid_input" })
    }
    call(3, `{"content":"after the deep ones","written_by":"a","session_id":"s"}`)
    expect((await raw.reply(3)).result?.isError).toBeFalsy()
    expect(raw.stderr()).not.toMatch(/internal error|call stack/)
  })

  it("answers params that are nested arrays, or a line cut short, with the request's id", async () => {
    line(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":[[["relay_save_fact"]]]}`)
    line(`{"jsonrpc":"2.0","params":[[1],[2]],"method":"tools/list","id":"eleven"}`)
    line(`{"jsonrpc":"2.0","id":12,"method":"tools/list","params":{`)
    expect((await raw.reply(10)).error?.code).toBe(ErrorCode.InvalidRequest)
    expect((await raw.reply("eleven")).error?.code).toBe(ErrorCode.InvalidRequest)
    expect((await raw.reply(12)).error?.code).toBe(ErrorCode.ParseError)
    // With no id to read, JSON-RPC's null.
    line(`[1,2`)
    line(`{"jsonrpc":"2.0","method":"tools/list","params":7}`)
    line(`{"jsonrpc":"2.0","id":13,"method":"tools/list"}`)
    await raw.reply(13)
    expect(raw.messages().filter((m) => m.id === null).map((m) => m.error?.code)).toEqual([
      ErrorCode.ParseError,
      ErrorCode.InvalidRequest
    ])
  })

  it("never echoes a field, tool or prompt name raw: newlines and bidi overrides are escaped", async () => {
    const odd = "evil\u202efield\nline\u2028x"
    call(20, `{"content":"x","written_by":"a","session_id":"s",${JSON.stringify(odd)}:1}`)
    call(21, "{}", odd)
    line(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 22,
        method: "prompts/get",
        params: { name: "start-session", arguments: { [odd]: "x" } }
      })
    )
    line(JSON.stringify({ jsonrpc: "2.0", id: 23, method: "prompts/get", params: { name: odd } }))
    const texts = []
    for (const id of [20, 21, 22, 23]) {
      const answer = await raw.reply(id)
      const text = JSON.stringify(answer)
      texts.push(JSON.parse(text) as unknown)
      // The wire form escapes "\n" anyway: what must not be there is the decoded character.
      const shown = answer.error?.message ?? (answer.result as { content: Array<{ text: string }> }).content[0]!.text
      expect(shown).toContain("evil")
      expect(shown).not.toMatch(/[\u202e\n\u2028]/)
      expect(shown).toContain("\\u202e")
    }
  })
})

describe("the request id of a line known only as text", () => {
  it("is the outermost object's id member, wherever it sits, never one nested or quoted", () => {
    expect(topLevelId(`{"id":7,"params":[[[`)).toBe(7)
    expect(topLevelId(`{"params":{"id":1,"x":"}"},"method":"id","id":"a\\"b"}`)).toBe("a\"b")
    expect(topLevelId(`{"params":{"id":1}}`)).toBeUndefined()
    expect(topLevelId(`[{"id":1}]`)).toBeUndefined()
    expect(topLevelId(`{"id":1.5}`)).toBeUndefined()
  })
})
