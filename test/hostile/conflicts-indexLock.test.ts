import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { relayStack } from "../../src/layers/assembly/stacks.js"
import { statement } from "../../src/layers/database/decodeRows.js"
import type { CypherParams, GraphDatabase } from "../../src/services/GraphDatabase.js"
import { withRawDatabase } from "../support/rawDatabase.js"
import { ok } from "../support/runTool.js"
import { droppedOnRelease, testGraphName, testSettings } from "../support/testLayer.js"

/**
 * Issue 40, point 9: one client looping on the conflicts of 6,000 duplicates made every other
 * graph's saves wait for each conflicts statement. FalkorDB keeps an index scan's RediSearch
 * iterator, and with it RediSearch's one read lock for every graph of the server, until the
 * statement ends; a write that updates an index (every save) waits for that lock holding the
 * server's global lock. So the long part of the conflicts read, the walk over a forked parent's
 * children, must read no index: it takes the forked parents' node ids from a short statement of
 * its own. Each statement the tool sends is explained on the real database.
 */
const sent: Array<{ readonly cypher: string; readonly params: CypherParams }> = []
const recorded = (db: GraphDatabase["Type"]): GraphDatabase["Type"] => ({
  ...db,
  read: statement((cypher, params, row) => {
    sent.push({ cypher, params: params ?? {} })
    return row === undefined ? db.read(cypher, params) : db.read(cypher, params ?? {}, row)
  })
})
const graph = testGraphName("conflicts_index_lock")
const stack = relayStack(testSettings(graph), { wrap: recorded })

/** The plan's scans and seeks, as GRAPH.EXPLAIN names them, with the statement's own parameters. */
const scansOf = (s: { readonly cypher: string; readonly params: CypherParams }) =>
  Effect.promise(async () => {
    const prefix = Object.entries(s.params).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" ")
    const plan: Array<string> = await withRawDatabase((db) =>
      db.selectGraph(graph).explain(`CYPHER ${prefix} ${s.cypher}`)
    )
    return plan.map((line) => line.trim()).filter((line) => /Scan|Seek/.test(line))
  })

layer(droppedOnRelease(stack))("conflicts and the server's index lock", (it) => {
  it.effect("the walk over a forked parent's children reads no index; only a short statement finds the parents", () =>
    Effect.gen(function*() {
      const parent = yield* ok("relay_save_fact", { content: "Which queue?", written_by: "a", session_id: "s" })
      const parentId = (parent as { fact: { id: string } }).fact.id
      for (const content of ["Kafka", "Kafka", "RabbitMQ"]) {
        yield* ok("relay_save_fact", { content, written_by: "a", session_id: "s", parent_fact_id: parentId })
      }
      sent.length = 0
      const found = yield* ok("relay_detect_conflicts", {})
      expect((found as { conflicts: ReadonlyArray<{ parent: { id: string } }> }).conflicts.map((c) => c.parent.id))
        .toEqual([parentId])
      const walks = sent.filter((s) => s.cypher.includes("BUILDS_ON|ALSO_ON"))
      expect(walks).toHaveLength(1)
      const walk = yield* scansOf(walks[0]!)
      // Before: one statement, with Edge By Index Scan on SUPERSEDES, RETRACTS and MARKS stamps.
      expect(walk.filter((line) => /Index Scan/.test(line))).toEqual([])
      expect(walk.some((line) => line.startsWith("NodeByIdSeek"))).toBe(true)
      // The index is read where nothing else is: a statement that returns the parents' ids.
      const others = sent.filter((s) => s !== walks[0])
      for (const s of others) expect(s.cypher).not.toContain("BUILDS_ON")
    }))
})
