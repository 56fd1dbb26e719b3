import { expect, layer } from "@effect/vitest"
import { Cause, Effect, Logger } from "effect"
import { randomUUID } from "node:crypto"
import { internalMessage } from "../../src/mcp/callTool.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { runTool } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * Issue 12, item 2: every row is decoded by its Schema, so a :Fact node that is not a fact (damaged,
 * or written by something other than Relay) makes the call answer `internal` because decoding
 * refused it, with the row and field named in the log and nothing of it in the reply. Before, a
 * missing content or id went out to the client as null, and only a stamp a Date cannot hold failed,
 * by `toISOString` throwing a RangeError.
 */

/** A value no reply may carry: it only ever sits in the damaged node. */
const marker = "corrupt-marker-7f3a"

/** A raw node with the fields a fact has, minus or plus what a case changes (null: left out). */
const writeFact = (fields: Record<string, string | number | null>, parentId?: string) =>
  Effect.flatMap(GraphDatabase, (db) => {
    const set = Object.entries(fields).filter(([, v]) => v !== null)
    const props = set.map(([k]) => `${k}: $${k}`).join(", ")
    const params = Object.fromEntries(set)
    return parentId === undefined
      ? db.write(`CREATE (:Fact {${props}})`, params)
      : db.write(`MATCH (p:Fact {id: $parentId}) CREATE (:Fact {${props}})-[:BUILDS_ON]->(p)`, { ...params, parentId })
  })

const fact = (session: string, changes: Record<string, string | number | null> = {}) => ({
  id: randomUUID(),
  content: `${marker} content`,
  norm: `${marker} content`,
  written_by: "raw-writer",
  session_id: session,
  created_at: 1_000,
  ...changes
})

/** A tool call with every log line it made (message and cause), as the stderr logger would print them. */
const call = (name: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const logs: Array<string> = []
    const logger = Logger.make(({ cause, message }) =>
      logs.push(`${String(message)} ${Cause.isEmpty(cause) ? "" : Cause.pretty(cause)}`)
    )
    const result = yield* runTool(name, args).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
    return { result, log: logs.join("\n") }
  })

const expectInternal = (
  { log, result }: Effect.Effect.Success<ReturnType<typeof call>>,
  field: string
) => {
  expect(result.isError).toBe(true)
  expect(result.structuredContent).toEqual({ error: { code: "internal", message: internalMessage } })
  const reply = JSON.stringify(result)
  for (const leak of [marker, "CorruptRow", "decode", "Expected", "RangeError", "raw-writer"]) {
    expect(reply).not.toContain(leak)
  }
  // Decoding said so, naming the field; not a Date that threw.
  expect(log).toMatch(/internal error/)
  expect(log).toContain("CorruptRow")
  expect(log).toContain(field)
  expect(log).not.toMatch(/RangeError|Invalid time value/)
}

layer(relayTestLayer("corrupt_rows"))("a damaged fact node", (it) => {
  it.effect("written the same raw way but whole, it reads as a fact (the control)", () =>
    Effect.gen(function*() {
      const whole = fact("control")
      yield* writeFact(whole)
      const { log, result } = yield* call("relay_get_context", { fact_id: whole.id })
      expect(result.isError).toBeUndefined()
      expect(result.structuredContent).toEqual({
        chain: [{
          id: whole.id,
          content: whole.content,
          written_by: "raw-writer",
          session_id: "control",
          created_at: "1970-01-01T00:00:01.000Z",
          parent_id: null,
          status: "active"
        }],
        superseded_by: [],
        next_cursor: null
      })
      expect(log).toBe("")
    }))

  it.effect("with no content (null): internal, by decoding", () =>
    Effect.gen(function*() {
      const broken = fact("no_content", { content: null })
      yield* writeFact(broken)
      expectInternal(yield* call("relay_get_context", { fact_id: broken.id }), "fact.content")
      expectInternal(yield* call("relay_get_current_state", { session_id: "no_content" }), "fact.content")
    }))

  it.effect("with a created_at that is text: internal, by decoding", () =>
    Effect.gen(function*() {
      const broken = fact("text_stamp", { created_at: `${marker} yesterday` })
      yield* writeFact(broken)
      expectInternal(yield* call("relay_get_context", { fact_id: broken.id }), "fact.created_at")
    }))

  it.effect("with a created_at no Date can hold: internal, by decoding (was a RangeError from toISOString)", () =>
    Effect.gen(function*() {
      const broken = fact("huge_stamp", { created_at: 1e300 })
      yield* writeFact(broken)
      expectInternal(yield* call("relay_get_context", { fact_id: broken.id }), "fact.created_at")
    }))

  it.effect("with no id, under a whole child: internal, by decoding, whichever read meets it", () =>
    Effect.gen(function*() {
      const parent = fact("no_id")
      yield* writeFact(parent)
      const child = fact("no_id", { created_at: 2_000, content: "a whole child" })
      yield* writeFact(child, parent.id)
      // The parent loses its id only now: it had to be found by id to link the child.
      yield* Effect.flatMap(
        GraphDatabase,
        (db) => db.write("MATCH (f:Fact {id: $id}) SET f.id = NULL", { id: parent.id })
      )
      expectInternal(yield* call("relay_get_context", { fact_id: child.id }), "fact.id")
      expectInternal(yield* call("relay_get_current_state", { session_id: "no_id" }), "fact.id")
    }))
})
