import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import { outputOf } from "../support/toolOutputs.js"
import { type Built, replyBytes, replyCap, writeFacts } from "./shapes.js"

/**
 * 3,880 differing siblings under one parent: a save under it used to list all of them in
 * fork.siblings (1.4 MiB of JSON, and twice that with the text). Now it shows the 20 latest and
 * counts them all, and the statement maps only those 20.
 */
describe("a save under a parent with 3,880 differing siblings", () => {
  let relay: RelayClient
  let admin: Admin
  let parent: string
  let siblings: Array<Built>

  beforeAll(async () => {
    ;[relay, admin] = await Promise.all([connectRelay(), connectAdmin()])
    await relay.call("relay_get_current_state")
    const root = await relay.call("relay_save_fact", {
      content: "Where do uploads go?",
      written_by: "lead",
      session_id: "s"
    })
    parent = outputOf(root).fact.id
    siblings = await writeFacts(admin, relay.graph, {
      count: 3880,
      first: Date.parse(outputOf(root).fact.created_at) + 1,
      parent,
      content: (i) =>
        `Uploads go to bucket number ${i}, with a lifecycle rule that moves them to cold storage after ${i % 90} days. `
          .repeat(3)
    })
  }, 120_000)
  afterAll(async () => {
    await relay?.close()
    if (relay !== undefined) await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await admin?.close()
  })

  it("answers under 1 MiB with the 20 latest siblings, oldest first, and siblings_total", async () => {
    const started = performance.now()
    const r = await relay.call("relay_save_fact", {
      content: "Uploads go to the local disk",
      written_by: "zed",
      session_id: "s",
      parent_fact_id: parent
    })
    const ms = performance.now() - started
    expect(replyBytes(r)).toBeLessThan(replyCap)
    expect(r.isError, r.content[0]?.text).toBeFalsy()
    const fork = outputOf(r).fork
    expect(fork!.parent_id).toBe(parent)
    expect(fork!.siblings_total).toBe(3880)
    expect(fork!.siblings.map((f) => f.id)).toEqual(siblings.slice(-20).map((s) => s.id))
    expect(fork!.siblings.every((f) => f.parent_id === parent && f.status === "active")).toBe(true)
    expect(outputOf(r).duplicate_of).toBeNull()
    expect(r.content[0]?.text).toContain("Fork: siblings that say something else, 3880 in all, the latest shown (20):")
    console.log(`save under 3,880 siblings: reply ${replyBytes(r)} bytes in ${ms.toFixed(0)} ms`)
  })

  it("a duplicate of the oldest sibling is still found, and counted out of the fork", async () => {
    const r = await relay.call("relay_save_fact", {
      content: siblings[0]!.content,
      written_by: "zed",
      session_id: "s",
      parent_fact_id: parent
    })
    expect(outputOf(r).duplicate_of!.id).toBe(siblings[0]!.id)
    // 3,879 other siblings of the first batch plus the local-disk fact saved above.
    expect(outputOf(r).fork!.siblings_total).toBe(3880)
    expect(replyBytes(r)).toBeLessThan(replyCap)
  })
})
