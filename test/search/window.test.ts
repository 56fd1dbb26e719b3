import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { relayStack } from "../../src/layers/assembly/stacks.js"
import { statement } from "../../src/layers/database/decodeRows.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { ok } from "../support/runTool.js"
import { droppedOnRelease, testGraphName, testSettings } from "../support/testLayer.js"

/**
 * A search reads the best 4 pages of matches first and the best 1,000 only when that page came
 * back short from a full window. A search with few matches, the usual one in a small memory, reads
 * once. The full-text reads are counted on the real connection to the real database.
 */
let windowsRead = 0
const counted = (db: GraphDatabase["Type"]): GraphDatabase["Type"] => ({
  ...db,
  read: statement((cypher, params, row) => {
    // Only the ranking reads (a one-page answer also counts what its status filter left out), and not
    // the first page's warnings (issue 44), a read of one kind of its own.
    if (
      cypher.startsWith("CALL db.idx.fulltext.queryNodes") && cypher.includes("$window") &&
      !cypher.includes("node.kind = $kind")
    ) windowsRead++
    return row === undefined ? db.read(cypher, params) : db.read(cypher, params ?? {}, row)
  })
})
const stack = relayStack(testSettings(testGraphName("search_window")), { wrap: counted })

const save = (content: string, parent?: string) =>
  Effect.map(
    ok("relay_save_fact", { content, written_by: "pager", session_id: "window", parent_fact_id: parent }),
    (r) => r.fact.id
  )
const searched = (query: string) =>
  Effect.gen(function*() {
    windowsRead = 0
    const { hits } = yield* ok("relay_search", { query })
    return { hits: hits.length, windowsRead }
  })

layer(droppedOnRelease(stack))("relay_search's windows", (it) => {
  it.effect("a search with fewer matches than the first window reads once", () =>
    Effect.gen(function*() {
      for (let n = 0; n < 3; n++) yield* save(`quokka ${n}`)
      // Before, a page shorter than its limit always read again with the larger window.
      expect(yield* searched("quokka")).toEqual({ hits: 3, windowsRead: 1 })
      expect(yield* searched("nosuchwordanywhere")).toEqual({ hits: 0, windowsRead: 2 })
    }))

  it.effect("a short page from a full window reads the larger one, and finds what lies past the first", () =>
    Effect.gen(function*() {
      for (let n = 0; n < 5; n++) yield* save(`wombat live ${n}`)
      const root = yield* save("wombat plan")
      for (let n = 0; n < 40; n++) yield* save(`wombat step ${n}`, root)
      for (let n = 5; n < 7; n++) yield* save(`wombat live ${n}`)
      const winner = yield* save("another plan")
      yield* ok("relay_resolve_conflict", {
        winner_fact_id: winner,
        loser_fact_id: root,
        reason: "replaced",
        resolved_by: "pager"
      })
      // Newest first among equal scores: the first window (44) holds live 6 and 5, the 40 stale
      // steps, the superseded plan and live 4; the other live facts lie past it.
      expect(yield* searched("wombat")).toEqual({ hits: 7, windowsRead: 2 })
    }))
})
