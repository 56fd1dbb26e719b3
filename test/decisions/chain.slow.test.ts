import { describe, expect, it } from "@effect/vitest"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { withRawDatabase } from "../support/rawDatabase.js"
import { testGraphName } from "../support/testLayer.js"
import { type OutputOf, outputOf, type ToolCallResult } from "../support/toolOutputs.js"

/**
 * Briefings chain exactly: four Relay server processes (dist/server.js, each with its own SDK
 * client) write 60 facts each into one graph while a fifth keeps asking for a briefing with the
 * previous as_of as since. The reader must see all 240 facts, each exactly once. A stamp taken
 * from the Clock before the write commits loses one or two of them in most runs of this test.
 */
const env = { RELAY_RATE_LIMIT: "100000" }

const dropGraph = (graph: string) => withRawDatabase((db) => db.selectGraph(graph).delete().catch(() => undefined))

/**
 * Four writer processes save 60 facts each while `brief` (one briefing, read to its end) runs over
 * and over on a fifth, and once more after the writes; answers the ids saved and the ids seen.
 */
const underConcurrentWrites = async (
  label: string,
  brief: (reader: RelayClient, seen: Array<string>) => Promise<void>
) => {
  const graph = testGraphName(label)
  const clients: Array<RelayClient> = []
  try {
    const writers = await Promise.all(
      [1, 2, 3, 4].map((i) => connectRelay({ graph, env, name: `writer-${i}`, process: true }))
    )
    clients.push(...writers)
    const reader = await connectRelay({ graph, env, name: "reader", process: true })
    clients.push(reader)

    const saved: Array<string> = []
    let writing = true
    const write = async (client: RelayClient, w: number) => {
      // Three saves in flight per process, so writes from all four interleave at the database.
      const lanes = [0, 1, 2].map(async (lane) => {
        for (let i = lane; i < 60; i += 3) {
          const r = await client.call("relay_save_fact", {
            content: `writer ${w} fact ${i}`,
            written_by: `writer-${w}`,
            session_id: `w${w}`
          })
          expect(r.isError, r.content[0]?.text).toBeFalsy()
          saved.push(outputOf(r).fact.id)
        }
      })
      await Promise.all(lanes)
    }
    const seen: Array<string> = []
    let briefings = 0
    const read = async () => {
      while (writing) {
        await brief(reader, seen)
        briefings++
      }
      await brief(reader, seen)
      briefings++
    }
    const reading = read()
    await Promise.all(writers.map((c, i) => write(c, i + 1)))
    writing = false
    await reading

    expect(saved).toHaveLength(240)
    expect(new Set(seen).size).toBe(seen.length)
    expect([...seen].sort()).toEqual([...saved].sort())
    // The reader really did read while the writers wrote: at least one briefing before the last
    // (how many fit depends on the machine's load; on a loaded 2-core machine, 3).
    expect(briefings).toBeGreaterThanOrEqual(2)
    return { briefings }
  } finally {
    await Promise.all(clients.map((c) => c.close()))
    await dropGraph(graph)
  }
}

type Reply = ToolCallResult<OutputOf<"relay_get_briefing">>

/**
 * Reads the rest of a briefing's window, page by page, into `seen`; every page of one window has
 * the window's as_of. Answers how many further pages there were.
 */
const readRestOf = async (
  reader: RelayClient,
  first: Reply,
  seen: Array<string>,
  args: Record<string, unknown>
) => {
  let pages = 0
  for (let cursor = outputOf(first).next_cursor; cursor !== null; pages++) {
    const more = await reader.call("relay_get_briefing", { my_name: "reader", ...args, cursor })
    expect(more.isError).toBeFalsy()
    expect(outputOf(more).as_of).toBe(outputOf(first).as_of)
    for (const f of outputOf(more).new_facts) seen.push(f.id)
    cursor = outputOf(more).next_cursor
  }
  return pages
}

describe("briefings chain exactly", () => {
  it("a reader chaining as_of sees 240 facts from 4 concurrent writer processes exactly once", async () => {
    let since: string | undefined
    await underConcurrentWrites("chain", async (reader, seen) => {
      const r = await reader.call(
        "relay_get_briefing",
        since === undefined ? { my_name: "reader" } : { my_name: "reader", since }
      )
      expect(r.isError).toBeFalsy()
      if (since !== undefined) expect(outputOf(r).since).toBe(since)
      for (const f of outputOf(r).new_facts) seen.push(f.id)
      // A window larger than one page is read to its end before its as_of is chained.
      await readRestOf(reader, r, seen, {})
      since = outputOf(r).as_of
    })
  }, 60_000)

  it(
    "a reader leaving since out (its cursor in the graph) sees 240 facts from 4 concurrent writer processes exactly once",
    async () => {
      let previous: string | undefined
      let paged = 0
      // No since, no as_of kept by the client: only my_name, and a small limit so windows take pages.
      const { briefings } = await underConcurrentWrites("chain_auto", async (reader, seen) => {
        const r = await reader.call("relay_get_briefing", { my_name: "reader", limit: 7 })
        expect(r.isError, r.content[0]?.text).toBeFalsy()
        if (previous !== undefined) expect(outputOf(r).since).toBe(previous)
        for (const f of outputOf(r).new_facts) seen.push(f.id)
        paged += await readRestOf(reader, r, seen, { limit: 7 })
        previous = outputOf(r).as_of
      })
      console.error(`automatic briefings: ${briefings}, further pages: ${paged}`)
    },
    120_000
  )
})
