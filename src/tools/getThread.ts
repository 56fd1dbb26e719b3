import { Effect } from "effect"
import { threadMermaid } from "../domain/mermaid.js"
import { cursorNumbers, encodeCursor } from "../domain/paging.js"
import { ThreadInput, ThreadOutput } from "../domain/thread.js"
import { toIso } from "../domain/time.js"
import { FactStore } from "../services/FactStore.js"
import { defineTool, readOnly } from "./Tool.js"

/**
 * A thread, oldest first, with the decisions touching its facts. Not listed in tools/list (the
 * listing's token budget is for the tools a model calls): it answers the `relay://thread/{id}`
 * resource and the studio, through the same gate and policies as a tool call.
 */
export const getThread = defineTool({
  name: "relay_get_thread",
  description: "The thread a fact belongs to: the tree under its root, oldest first, with its decisions",
  annotations: readOnly("Get a thread"),
  input: ThreadInput,
  output: ThreadOutput,
  render: (o) => threadMermaid(o.facts, o.decisions, o.next_cursor !== null).split("\n"),
  handler: Effect.fn("relay/tools/relay_get_thread")(function*(input) {
    const after = yield* cursorNumbers(input.cursor, 1)
    const page = yield* (yield* FactStore).thread({
      factId: input.fact_id,
      limit: input.limit,
      after: after?.[0] ?? null,
      asOf: input.as_of ?? null
    })
    const last = page.facts[page.facts.length - 1]
    return {
      root_id: page.rootId,
      facts: page.facts,
      decisions: page.decisions.map((d) => ({ ...d, created_at: toIso(d.created_at) })),
      next_cursor: page.more && last !== undefined ? encodeCursor([Date.parse(last.created_at)]) : null
    }
  })
})
