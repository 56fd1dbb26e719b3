import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import { checkedCaller } from "./protocol.js"

/**
 * A retracted fact was withdrawn as wrong, so a save under the same parent neither answers with it
 * as the fact it repeats (`duplicate_of`) nor warns about it as a differing sibling (`fork`), and
 * no fork mark is made for it. Through dist/server.js and the SDK's Client over stdio.
 */
describe("relay_save_fact ignores retracted siblings", () => {
  let relay: RelayClient
  let admin: Admin
  let mcp: Awaited<ReturnType<typeof checkedCaller>>

  const save = async (content: string, parent?: string) =>
    mcp.ok("relay_save_fact", {
      content,
      written_by: "zed",
      session_id: "retracted-siblings",
      ...(parent === undefined ? {} : { parent_fact_id: parent })
    })
  const retract = (id: string) => mcp.ok("relay_retract_fact", { fact_id: id, reason: "Wrong", retracted_by: "zed" })
  const forkMarks = async (parent: string) =>
    (await admin.query<{ n: number }>(
      relay.graph,
      "MATCH (:ForkMark)-[:MARKS]->(p:Fact {id: $id}) RETURN count(p) AS n",
      { id: parent }
    ))[0]?.n

  beforeAll(async () => {
    ;[relay, admin] = await Promise.all([connectRelay(), connectAdmin()])
    mcp = await checkedCaller(relay)
  })
  afterAll(async () => {
    await relay?.close()
    if (relay !== undefined) await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await admin?.close()
  })

  it("the same words as a retracted sibling are no duplicate of it", async () => {
    const root = (await save("Where refresh tokens live")).fact.id
    const wrong = (await save("Store them in Redis", root)).fact.id
    await retract(wrong)
    const again = await save("store them in  REDIS", root)
    expect(again.duplicate_of).toBeNull()
    expect(again.fork).toBeNull()
  })

  it("a retracted sibling is no fork: nothing to warn about, no fork mark, no open conflict", async () => {
    const root = (await save("Which token format")).fact.id
    const wrong = (await save("Use JWTs signed with HS256", root)).fact.id
    await retract(wrong)
    const other = await save("Use opaque tokens", root)
    expect(other.fork).toBeNull()
    expect(other.duplicate_of).toBeNull()
    expect(await forkMarks(root)).toBe(0)
    const conflicts = await mcp.ok("relay_detect_conflicts", {})
    expect(conflicts.conflicts.map((c: { parent: { id: string } }) => c.parent.id)).not.toContain(root)
  })

  it("among live siblings, only the retracted one is left out of fork and duplicate_of", async () => {
    const root = (await save("How long sessions last")).fact.id
    const first = (await save("Thirty minutes", root)).fact.id
    const second = (await save("Eight hours", root)).fact.id
    await retract(first)
    const repeat = await save("thirty minutes", root)
    expect(repeat.duplicate_of).toBeNull()
    expect(repeat.fork!.siblings.map((f: { id: string }) => f.id)).toEqual([second])
    expect(repeat.fork!.siblings_total).toBe(1)
    const third = await save("One day", root)
    expect(third.fork!.siblings.map((f: { id: string }) => f.id)).toEqual([second, repeat.fact.id])
    expect(third.fork!.siblings_total).toBe(2)
    expect(third.duplicate_of).toBeNull()
    const eight = await save("eight HOURS", root)
    expect(eight.duplicate_of!.id).toBe(second)
  })
})
