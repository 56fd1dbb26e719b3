import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { buildsOnMessage, revisionMessage } from "../../src/domain/rules.js"
import { decodeInput } from "../../src/mcp/callTool.js"
import { saveFact } from "../../src/tools/saveFact.js"

/**
 * relay_save_fact's rules that combine fields live in its input Schema: a call that breaks one is
 * refused while decoding, with the contract's message naming the field, before the handler runs.
 */
const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`
const base = { content: "sessions live in redis", written_by: "cursor", session_id: "s:1" }

describe("relay_save_fact's input Schema", () => {
  it.effect("refuses each broken combination with its message, and takes the valid ones", () =>
    Effect.gen(function*() {
      const refused = (args: object) =>
        Effect.map(Effect.flip(decodeInput(saveFact, { ...base, ...args })), (e) => e.message)
      expect(yield* refused({ supersedes: id(1) })).toBe(revisionMessage.reason_needed)
      expect(yield* refused({ reason: "moved" })).toBe(revisionMessage.reason_alone)
      expect(yield* refused({ still_holds: [id(2)] })).toBe(revisionMessage.still_holds_alone)
      expect(yield* refused({ preconditions: ["db up"] })).toBe("preconditions: only a procedure (steps) has them")
      expect(yield* refused({ parent_fact_id: id(1), builds_on: [id(2)] })).toBe(buildsOnMessage.both)
      expect(yield* refused({ steps: ["restart"], kind: "detail" })).toBe(
        "kind: a fact with steps is a procedure; give no kind"
      )
      yield* decodeInput(saveFact, { ...base, supersedes: id(1), reason: "moved", still_holds: [id(2)] })
      yield* decodeInput(saveFact, { ...base, steps: ["restart"], preconditions: ["db up"] })
      yield* decodeInput(saveFact, { ...base, builds_on: [id(1), id(2)], kind: "choice" })
    }))
})
