import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin, storedFacts } from "../support/proof.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

const save = (relay: RelayClient, content: string, extra: Record<string, unknown> = {}) =>
  relay.call("relay_save_fact", { content, written_by: "filler", session_id: "cap", ...extra })

/**
 * A graph's capacity (RELAY_MAX_FACTS, RELAY_MAX_CONTENT_BYTES): one team's workspace cannot fill
 * the disk the others share. Checked and counted in the save's own statement, so racing writers
 * cannot pass it together, and a retry of a save that landed still answers.
 */
describe("a memory's capacity", () => {
  let admin: Admin
  const relays: Array<RelayClient> = []
  const open = async (env: Record<string, string>) => {
    const relay = await connectRelay({ env })
    relays.push(relay)
    return relay
  }
  beforeAll(async () => {
    admin = await connectAdmin()
  })
  afterAll(async () => {
    await Promise.all(relays.map((r) => r.close()))
    for (const r of relays) await admin.command(["GRAPH.DELETE", r.graph]).catch(() => undefined)
    await admin.close()
  })

  it("RELAY_MAX_FACTS: the save past it is memory_full and writes nothing; a retried save still answers", async () => {
    const relay = await open({ RELAY_MAX_FACTS: "3" })
    const first = outputOf(await save(relay, "first fact"))
    outputOf(await save(relay, "second fact", { parent_fact_id: first.fact.id }))
    const third = outputOf(await save(relay, "third fact", { request_id: "third-call" }))
    const refused = errorOf(await save(relay, "fourth fact"))
    expect(refused.code).toBe("memory_full")
    expect(refused.message).toMatch(/holds 3 facts.*RELAY_MAX_FACTS.*nothing was written/)
    // The same call again (its request_id): the fact it made, not a refusal.
    const again = outputOf(await save(relay, "third fact", { request_id: "third-call" }))
    expect(again.fact.id).toBe(third.fact.id)
    expect((await storedFacts(admin, relay.graph)).map((f) => f.content).sort()).toEqual(
      ["first fact", "second fact", "third fact"]
    )
    // Reads go on as before.
    expect(outputOf(await relay.call("relay_get_current_state", {})).facts).toHaveLength(3)
  })

  it("racing saves against the cap: exactly as many land as it allows", async () => {
    const relay = await open({ RELAY_MAX_FACTS: "5" })
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => save(relay, `racer ${i}`)))
    const codes = results.map((r) => (r.isError === true ? errorOf(r).code : "ok"))
    expect(codes.filter((c) => c === "ok")).toHaveLength(5)
    expect(codes.filter((c) => c === "memory_full")).toHaveLength(7)
    expect(await storedFacts(admin, relay.graph)).toHaveLength(5)
  })

  it("RELAY_MAX_CONTENT_BYTES counts UTF-8 bytes of text: a text that does not fit is refused, one that does still lands", async () => {
    const relay = await open({ RELAY_MAX_CONTENT_BYTES: "2100" })
    outputOf(await save(relay, "é".repeat(1000)))
    const refused = errorOf(await save(relay, "x".repeat(101)))
    expect(refused.code).toBe("memory_full")
    expect(refused.message).toMatch(/2100 bytes.*RELAY_MAX_CONTENT_BYTES.*nothing was written/)
    outputOf(await save(relay, "x".repeat(100)))
    expect(await storedFacts(admin, relay.graph)).toHaveLength(2)
  })
})
