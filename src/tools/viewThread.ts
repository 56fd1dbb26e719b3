import { Clock, Effect } from "effect"
import { currentBudget, encodeCursor, fit } from "../domain/paging.js"
import { ThreadViewInput, ThreadViewOutput } from "../domain/threadView.js"
import { toIso } from "../domain/time.js"
import { FactStore } from "../services/FactStore.js"
import { getThread } from "./getThread.js"
import { defineTool, readOnly } from "./Tool.js"

/** The open conflicts read for a page's fork marks: one page of relay_detect_conflicts' widest. */
const forksRead = 100

/**
 * The thread app's read (src/apps): a page of the thread, cut to the reply budget at whole facts,
 * with the decisions touching the kept facts and the kept parents that have an open conflict under
 * them. Listed only to hosts that draw MCP Apps, and for the app alone (`_meta.ui.visibility`), so
 * its description is a title: the model never reads it.
 */
export const viewThread = defineTool({
  name: "relay_view_thread",
  description: "The thread app's read of a thread",
  annotations: readOnly("Draw a thread"),
  input: ThreadViewInput,
  output: ThreadViewOutput,
  render: (o) => [`${o.facts.length} facts of the thread under ${o.root_id}, drawn by the app`],
  handler: Effect.fn("relay/tools/relay_view_thread")(function*(input) {
    const page = yield* getThread.handler(input)
    const kept = page.facts.slice(0, fit(page.facts, yield* currentBudget()).count)
    const ids = new Set(kept.map((f) => f.id))
    const conflicts = yield* (yield* FactStore).openConflicts({
      limit: forksRead,
      after: null,
      children: 2,
      asOf: input.as_of ?? null,
      thread: input.fact_id
    })
    const last = kept[kept.length - 1]
    return {
      root_id: page.root_id,
      facts: kept,
      decisions: page.decisions.filter((d) => ids.has(d.winner_id) || ids.has(d.loser_id)),
      open_forks: [...new Set(conflicts.conflicts.map((c) => c.parent.id))].filter((id) => ids.has(id)),
      next_cursor: kept.length < page.facts.length && last !== undefined
        ? encodeCursor([Date.parse(last.created_at)])
        : page.next_cursor,
      read_at: toIso(yield* Clock.currentTimeMillis)
    }
  })
})
