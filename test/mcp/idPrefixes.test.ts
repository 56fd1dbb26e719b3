import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import { checkedCaller } from "./protocol.js"

/**
 * Replies show fact ids by their first 8 characters; every fact-id input takes such a prefix back,
 * resolved in one place before the tool runs: a unique prefix is the whole id, a prefix two facts
 * share is invalid_input naming the field, one no fact has is fact_not_found, and nothing is written.
 */
describe("fact-id prefixes as input, through the MCP client", () => {
  let relay: RelayClient
  let admin: Admin
  let mcp: Awaited<ReturnType<typeof checkedCaller>>
  const twinA = "abcdef01-0000-4000-8000-a00000000000"
  const twinB = "abcdef01-0000-4000-8000-b00000000000"
  const facts = async () => (await admin.query<{ n: number }>(relay.graph, "MATCH (f:Fact) RETURN count(f) AS n"))[0]?.n
  const save = (content: string, parent?: string) =>
    mcp.ok("relay_save_fact", {
      content,
      written_by: "cursor",
      session_id: "p1",
      ...(parent === undefined ? {} : { parent_fact_id: parent })
    })

  beforeAll(async () => {
    ;[relay, admin] = await Promise.all([connectRelay(), connectAdmin()])
    mcp = await checkedCaller(relay)
    await save("warm up: the server makes its schema on the first call")
    // Two facts whose ids share their first 8 characters (Relay's own ids collide there about once in 4 billion).
    await admin.query(
      relay.graph,
      "UNWIND $ids AS id CREATE (:Fact {id: id, content: 'twin ' + id, norm: 'twin ' + id, written_by: 'x', session_id: 's', created_at: 5})",
      { ids: [twinA, twinB] }
    )
  })
  afterAll(async () => {
    await relay?.close()
    if (relay !== undefined) await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await admin?.close()
  })

  it("a unique prefix stands for the whole id in every fact-id field, in any case", async () => {
    const root = (await save("Auth uses refresh tokens")).fact
    const short = root.id.slice(0, 8)
    const child = (await save("Keep them in cookies", short.toUpperCase())).fact
    expect(child.parent_id).toBe(root.id)
    const other = (await save("Keep them in Redis", `${root.id.slice(0, 13)}`)).fact
    expect(other.parent_id).toBe(root.id)

    const context = await mcp.ok("relay_get_context", { fact_id: child.id.slice(0, 8) })
    expect(context.chain.map((f) => f.id)).toEqual([root.id, child.id])
    const impact = await mcp.ok("relay_get_impact", { fact_id: short })
    expect(impact.fact_id).toBe(root.id)
    expect(impact.dependents.map((d) => d.fact.id).sort()).toEqual([child.id, other.id].sort())

    const resolved = await mcp.ok("relay_resolve_conflict", {
      winner_fact_id: other.id.slice(0, 10),
      loser_fact_id: child.id.slice(0, 8),
      reason: "instant revocation",
      resolved_by: "cursor"
    })
    expect([resolved.winner!.id, resolved.loser!.id]).toEqual([other.id, child.id])
    // and each item of a list of fact ids
    const third = (await save("Rotate them on every use", short)).fact
    const compatible = await mcp.ok("relay_resolve_conflict", {
      outcome: "compatible",
      fact_ids: [other.id.slice(0, 8), third.id.slice(0, 12).toUpperCase()],
      reason: "storage and rotation are separate questions",
      resolved_by: "cursor"
    })
    expect(compatible.facts!.map((f) => f.id).sort()).toEqual([other.id, third.id].sort())
    // the text shows the short form that was just accepted
    const text = mcp.text(await relay.call("relay_get_context", { fact_id: child.id }))
    expect(text).toContain(`${child.id.slice(0, 8)} [superseded] cursor`)
    expect(text).not.toContain(child.id)
  })

  it("a prefix two facts share is invalid_input naming the field and the whole ids to choose from; nothing is written", async () => {
    const before = await facts()
    for (
      const [tool, args, field] of [
        ["relay_get_context", { fact_id: "abcdef01" }, "fact_id"],
        ["relay_get_impact", { fact_id: "ABCDEF01-0000" }, "fact_id"],
        [
          "relay_save_fact",
          { content: "x", written_by: "a", session_id: "s", parent_fact_id: "abcdef01-0000-4000" },
          "parent_fact_id"
        ],
        [
          "relay_resolve_conflict",
          { winner_fact_id: twinA, loser_fact_id: "abcdef01", reason: "r", resolved_by: "a" },
          "loser_fact_id"
        ]
      ] as const
    ) {
      const error = await mcp.fails(tool, args)
      expect(error.code, tool).toBe("invalid_input")
      expect(error.message.startsWith(`${field}: more than one fact`), error.message).toBe(true)
      // Relay's own ids, whole: the compact JSON shows short ids only, so the refusal names the choices.
      expect(error.message).toContain(`(${twinA}, ${twinB})`)
    }
    // one more character than the twins share settles it
    expect((await mcp.ok("relay_get_context", { fact_id: twinA.slice(0, 25) })).chain.map((f) => f.id)).toEqual([
      twinA
    ])
    expect(await facts()).toBe(before)
  })

  it("a prefix three facts share names two of them and says there are more", async () => {
    const triplets = ["c", "d", "e"].map((x) => `fedcba09-0000-4000-8000-${x}00000000000`)
    await admin.query(
      relay.graph,
      "UNWIND $ids AS id CREATE (:Fact {id: id, content: 'triplet ' + id, norm: 'triplet ' + id, written_by: 'x', session_id: 's', created_at: 6})",
      { ids: triplets }
    )
    const error = await mcp.fails("relay_get_context", { fact_id: "fedcba09" })
    expect(error.code).toBe("invalid_input")
    const named =
      /^fact_id: more than one fact has an id starting with that \((\S+), (\S+) and more\); give more characters or the whole id$/
        .exec(error.message)
    expect(named, error.message).not.toBeNull()
    // Two of the three, in whatever order the index gives them.
    expect(triplets).toEqual(expect.arrayContaining([named![1], named![2]]))
    expect(named![1]).not.toBe(named![2])
  })

  it("a prefix no fact has is fact_not_found naming the field; too short or not hex is invalid_input", async () => {
    const before = await facts()
    const missing = await mcp.fails("relay_save_fact", {
      content: "x",
      written_by: "a",
      session_id: "s",
      parent_fact_id: "0badc0de"
    })
    expect(missing).toEqual({ code: "fact_not_found", message: "parent_fact_id: no fact has an id starting with that" })
    const winner = await mcp.fails("relay_resolve_conflict", {
      winner_fact_id: "0badc0de-1",
      loser_fact_id: twinA,
      reason: "r",
      resolved_by: "a"
    })
    expect(winner.code).toBe("fact_not_found")
    expect(winner.message.startsWith("winner_fact_id: ")).toBe(true)
    // an item of fact_ids is named by its place in the list, and not echoed either
    const listed = await mcp.fails("relay_resolve_conflict", {
      outcome: "compatible",
      fact_ids: [twinA, "0badc0de"],
      reason: "r",
      resolved_by: "a"
    })
    expect(listed).toEqual({ code: "fact_not_found", message: "fact_ids.1: no fact has an id starting with that" })
    const shared = await mcp.fails("relay_resolve_conflict", {
      outcome: "compatible",
      fact_ids: ["abcdef01", twinB],
      reason: "r",
      resolved_by: "a"
    })
    expect(shared.code).toBe("invalid_input")
    expect(shared.message.startsWith("fact_ids.0: more than one fact")).toBe(true)
    for (const bad of ["abcdef0", "abcdef01--", "abcdef0g", "abcdef01-00000"]) {
      const e = await mcp.fails("relay_get_context", { fact_id: bad })
      expect(e, bad).toEqual({
        code: "invalid_input",
        message: "fact_id: must be an id Relay returned, or its first 8 or more characters"
      })
    }
    expect(await facts()).toBe(before)
  })
})
