import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import { outputOf } from "../support/toolOutputs.js"
import { type Built, duplicates, longText, replyBytes, replyCap, writeFacts } from "./shapes.js"

/**
 * 4,000 facts of 2,000 characters (quotes, backslashes, line breaks) written within the last day:
 * the default briefing used to carry all of them (over 16 MiB). Now each page stays under 1 MiB,
 * paging through one window shows each fact once, and chaining as_of afterwards is still exact. Every
 * other read tool at its largest page stays under 1 MiB on the same graph.
 */
describe("4,000 long facts in a day", () => {
  let relay: RelayClient
  let admin: Admin
  let facts: Array<Built>

  beforeAll(async () => {
    ;[relay, admin] = await Promise.all([connectRelay(), connectAdmin()])
    await relay.call("relay_get_current_state")
    facts = await writeFacts(admin, relay.graph, {
      count: 4000,
      first: Date.now() - 6 * 60 * 60 * 1000,
      parent: null,
      content: (i) => longText(`finding ${i}`)
    })
  }, 300_000)
  afterAll(async () => {
    await relay?.close()
    if (relay !== undefined) await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await admin?.close()
  })

  it("the default briefing is under 1 MiB; its pages give each fact once; chaining as_of is still exact", async () => {
    const first = await relay.call("relay_get_briefing", { my_name: "reader" })
    expect(replyBytes(first)).toBeLessThan(replyCap)
    expect(first.isError, first.content[0]?.text).toBeFalsy()
    expect(outputOf(first).next_cursor).not.toBeNull()
    expect(first.content[0]?.text).toContain("relay_get_briefing with the same my_name and cursor ")

    const seen: Array<string> = outputOf(first).new_facts.map((f) => f.id)
    const asOf = outputOf(first).as_of
    let largest = replyBytes(first)
    let cursor = outputOf(first).next_cursor
    let pages = 1
    while (cursor !== null && pages < 500) {
      const r = await relay.call("relay_get_briefing", { my_name: "reader", cursor, limit: 200 })
      largest = Math.max(largest, replyBytes(r))
      expect(replyBytes(r)).toBeLessThan(replyCap)
      expect(outputOf(r).as_of).toBe(asOf)
      seen.push(...outputOf(r).new_facts.map((f) => f.id))
      cursor = outputOf(r).next_cursor
      pages++
      // Saved while paging: after this window's fence, so only the next briefing shows it.
      if (pages === 3) {
        await relay.call("relay_save_fact", { content: "written while paging", written_by: "late", session_id: "s" })
      }
    }
    expect(duplicates(seen)).toEqual([])
    expect(seen).toEqual(facts.map((f) => f.id))
    console.log(`briefing of 4,000 long facts: ${pages} pages, largest reply ${largest} bytes`)

    const next = await relay.call("relay_get_briefing", { my_name: "reader", since: asOf })
    expect(outputOf(next).new_facts.map((f) => f.content)).toEqual(["written while paging"])
    expect(outputOf(next).next_cursor).toBeNull()
  }, 240_000)

  it(
    "the start-session prompt and the briefing resource stay under 1 MiB; each next one starts where the last ended",
    async () => {
      const bytes = (x: unknown) => Buffer.byteLength(JSON.stringify(x))
      // The text names each fact by a short prefix of its id at the start of its line.
      const uuids = (text: string) =>
        new Set(
          [...text.matchAll(/^\s*([0-9a-f]{8}[0-9a-f-]*) /gm)].map((m) =>
            facts.find((f) => f.id.startsWith(m[1]!))?.id ?? m[1]!
          )
        )
      const prompt = await relay.client.getPrompt({ name: "start-session", arguments: { name: "prompt-reader" } })
      expect(bytes(prompt)).toBeLessThan(replyCap)
      const first = uuids((prompt.messages[0]!.content as { text: string }).text)
      const resource = await relay.client.readResource({ uri: "relay://briefing/prompt-reader" })
      expect(bytes(resource)).toBeLessThan(replyCap)
      const second = uuids((resource.contents[0] as { text: string }).text)
      expect(first.size).toBeGreaterThan(0)
      expect(second.size).toBeGreaterThan(0)
      // The resource read went on from where the prompt's page ended: no fact in both.
      expect([...first].filter((id) => second.has(id))).toEqual([])
      const order = new Map(facts.map((f, i) => [f.id, i]))
      const last = Math.max(...[...first].map((id) => order.get(id) ?? -1))
      expect(Math.min(...[...second].map((id) => order.get(id) ?? Infinity))).toBe(last + 1)
      console.log(`start-session prompt at 4,000 long facts: ${bytes(prompt)} bytes, ${first.size} facts`)
    },
    120_000
  )

  it("every other read tool at its largest page stays under 1 MiB and reads on", async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ["relay_get_current_state", { limit: 100 }],
      ["relay_get_important_facts", { limit: 100 }],
      ["relay_get_clusters", {}],
      ["relay_get_clusters", { limit: 1000, facts_per_cluster: 1000 }],
      ["relay_detect_conflicts", { limit: 100 }]
    ]
    for (const [tool, args] of calls) {
      const r = await relay.call(tool, args)
      expect(r.isError, `${tool}: ${r.content[0]?.text?.slice(0, 200)}`).toBeFalsy()
      expect(replyBytes(r), tool).toBeLessThan(replyCap)
      console.log(`${tool} ${JSON.stringify(args)}: ${replyBytes(r)} bytes`)
    }
    // Current state pages on, newest first, each fact once.
    const ids: Array<string> = []
    let cursor: string | undefined
    for (let pages = 0; pages < 10; pages++) {
      const r = await relay.call(
        "relay_get_current_state",
        cursor === undefined ? { limit: 100 } : { limit: 100, cursor }
      )
      ids.push(...outputOf(r).facts.map((f) => f.id))
      cursor = outputOf(r).next_cursor ?? undefined
    }
    expect(duplicates(ids)).toEqual([])
    const newestFirst = [...facts].reverse().map((f) => f.id)
    expect(ids.filter((id) => newestFirst.includes(id))).toEqual(
      newestFirst.slice(0, ids.filter((id) => newestFirst.includes(id)).length)
    )
    // Clusters page on too: 4,000 roots are 4,000 clusters of one, numbered on across pages.
    const c1 = outputOf(await relay.call("relay_get_clusters", {}))
    const c2 = outputOf(await relay.call("relay_get_clusters", { cursor: c1.next_cursor }))
    expect(c2.clusters[0]!.id).toBe(c1.clusters.length + 1)
    expect(duplicates([...c1.clusters, ...c2.clusters].map((c) => c.facts[0]!.id))).toEqual([])
  }, 120_000)
})
