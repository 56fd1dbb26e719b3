import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { checkedCaller } from "../mcp/protocol.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"

/**
 * A fact is read in the context of what it builds on (matching.ts, parentWeight): among facts that
 * hold some of a question's words, one whose parent holds the others ranks first. Two facts with the
 * same words would otherwise tie, and a tie shows the newer first, so the decoy is saved last.
 */
describe("relay_search weighs in the fact a hit builds on", () => {
  let relay: RelayClient
  let admin: Admin
  let mcp: Awaited<ReturnType<typeof checkedCaller>>
  const ids: Record<string, string> = {}

  const save = async (key: string, content: string, parent?: string) => {
    const r = await mcp.ok("relay_save_fact", {
      content,
      written_by: "tester",
      session_id: "context-1",
      ...(parent === undefined ? {} : { parent_fact_id: ids[parent], kind: "detail" })
    })
    ids[key] = r.fact.id
  }

  beforeAll(async () => {
    ;[relay, admin] = await Promise.all([connectRelay(), connectAdmin()])
    mcp = await checkedCaller(relay)
    await save("pg", "Postgres connection settings for billing")
    await save("child", "Pool size is 20", "pg")
    await save("other", "Deploys run on Fridays")
    await save("decoy", "Pool size is 8", "other")
  })

  afterAll(async () => {
    await relay?.close()
    if (relay !== undefined) await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await admin?.close()
  })

  it("ranks the detail under the matching parent above an equal newer one, with the higher score", async () => {
    const page = await mcp.ok("relay_search", { query: "postgres pool size", status: "any" })
    const order = page.hits.map((h) => h.fact.id)
    expect(order.indexOf(ids["child"]!)).toBeGreaterThanOrEqual(0)
    expect(order.indexOf(ids["child"]!)).toBeLessThan(order.indexOf(ids["decoy"]!))
    const [child, decoy] = [ids["child"], ids["decoy"]].map((id) => page.hits.find((h) => h.fact.id === id)!)
    expect(child!.score).toBeGreaterThan(decoy!.score)
    // Its strength is its own words': the parent raises its rank, not its certainty.
    expect(child!.weak ?? false).toBe(decoy!.weak ?? false)
  })
})
