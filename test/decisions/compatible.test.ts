import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { createBuildsOnCypher, createFactsCypher, storedFact } from "../../bench/bulkLoad.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

/**
 * Compatible decisions, as_of and retracted children on relay_detect_conflicts and
 * relay_resolve_conflict, through the real MCP client against dist/server.js.
 */
describe("compatible siblings, as_of and retractions in conflicts", () => {
  let relay: RelayClient
  let admin: Admin
  const ok = async <N extends string>(name: N, args: Record<string, unknown>) => {
    const r = await relay.call(name, args)
    expect(r.isError, `${name}: ${r.content[0]?.text}`).toBeFalsy()
    return outputOf(r)
  }
  const refused = async (name: string, args: Record<string, unknown>) => {
    const r = await relay.call(name, args)
    expect(r.isError).toBe(true)
    return errorOf(r)
  }
  const save = async (content: string, parent?: string): Promise<{ id: string; created_at: string }> =>
    (await ok("relay_save_fact", {
      content,
      written_by: "zed",
      session_id: "s",
      ...(parent === undefined ? {} : { parent_fact_id: parent })
    })).fact
  const conflicts = async (args: Record<string, unknown> = {}) =>
    (await ok("relay_detect_conflicts", args)).conflicts.map((
      c
    ) => [c.parent.id, c.children.map((f) => f.id), c.children_total])
  /** A compatible outcome's arguments for any number of fact ids. */
  const listArgs = (factIds: ReadonlyArray<string>, reason: string, resolvedBy = "lead", requestId?: string) => ({
    outcome: "compatible",
    fact_ids: factIds,
    reason,
    resolved_by: resolvedBy,
    ...(requestId === undefined ? {} : { request_id: requestId })
  })
  const compatibleArgs = (a: string, b: string, reason = "r") => listArgs([a, b], reason)
  /** How many COMPATIBLE edges join two of `ids`. */
  const edgesAmong = async (ids: ReadonlyArray<string>) =>
    (await admin.query<{ n: number }>(
      relay.graph,
      "MATCH (a:Fact)-[r:COMPATIBLE]->(b:Fact) WHERE a.id IN $ids AND b.id IN $ids RETURN count(r) AS n",
      { ids }
    ))[0]?.n
  const compatible = (a: string, b: string, reason = "both hold") =>
    relay.call("relay_resolve_conflict", compatibleArgs(a, b, reason))

  beforeAll(async () => {
    ;[relay, admin] = await Promise.all([connectRelay(), connectAdmin()])
  }, 60_000)
  afterAll(async () => {
    await relay?.close()
    if (relay !== undefined) await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await admin?.close()
  })

  it(
    "a compatible pair leaves the conflicts, both stand, a repeat keeps the first record; as_of sees the past",
    async () => {
      const root = await save("How do we store sessions?")
      const a = await save("Sessions live in Postgres", root.id)
      const b = await save("Session tokens are signed with Ed25519", root.id)
      const c = await save("Sessions live in Redis", root.id)
      expect(await conflicts()).toEqual([[root.id, [c.id, b.id, a.id], 3]])

      const first = await compatible(b.id, a.id)
      expect(first.isError, first.content[0]?.text).toBeFalsy()
      const rec = outputOf(first)
      expect(rec.outcome).toBe("compatible")
      expect(rec.facts!.map((f) => f.id)).toEqual([b.id, a.id])
      expect(rec.facts!.map((f) => f.status)).toEqual(["active", "active"])
      expect(rec.stale).toEqual([])
      expect(rec.already_resolved).toBe(false)
      expect(rec.winner).toBeUndefined()
      expect(first.content.map((x) => x.text).join("\n")).toContain("compatible")
      // a and b no longer conflict, but each still differs from c with no record between them.
      expect(await conflicts()).toEqual([[root.id, [c.id, b.id, a.id], 3]])

      expect((await compatible(b.id, c.id)).isError).toBeFalsy()
      // Only a and c remain an open pair: b is in no open pair and is not listed.
      expect(await conflicts()).toEqual([[root.id, [c.id, a.id], 2]])
      const settled = await compatible(a.id, c.id)
      expect(settled.isError).toBeFalsy()
      expect(await conflicts()).toEqual([])

      // Idempotent, either order: the first record comes back and no second edge is made.
      const again = await compatible(a.id, b.id, "changed my mind")
      expect(again.isError, again.content[0]?.text).toBeFalsy()
      expect(outputOf(again).already_resolved).toBe(true)
      expect(outputOf(again).reason).toBe("both hold")
      const edges = await admin.query<{ n: number }>(relay.graph, "MATCH ()-[r:COMPATIBLE]->() RETURN count(r) AS n")
      expect(edges[0]?.n).toBe(3)
      // Nothing stale, nothing superseded.
      for (const f of [a, b, c]) {
        const ctx = await ok("relay_get_context", { fact_id: f.id })
        expect(ctx.chain.map((x) => x.status)).toEqual(["active", "active"])
      }

      // as_of: before the records the fork was open; before the fork there was none.
      const recorded = Date.parse(rec.created_at)
      expect(await conflicts({ as_of: new Date(recorded - 1).toISOString() })).toEqual([[
        root.id,
        [c.id, b.id, a.id],
        3
      ]])
      expect(await conflicts({ as_of: b.created_at })).toEqual([[root.id, [b.id, a.id], 2]])
      expect(await conflicts({ as_of: a.created_at })).toEqual([])
      const bad = await refused("relay_detect_conflicts", { as_of: "2026-02-30T00:00:00Z" })
      expect(bad.code).toBe("invalid_input")
    },
    60_000
  )

  it("a record with a sibling that is then superseded vouches for nothing: the fact differs from the revision", async () => {
    const root = await save("Where do uploads go?")
    const a = await save("Uploads go to S3", root.id)
    const b = await save("Uploads are virus-scanned first", root.id)
    expect((await compatible(a.id, b.id)).isError).toBeFalsy()
    expect(await conflicts()).toEqual([])
    // b's revision says something a was never recorded compatible with.
    const c = (await ok("relay_save_fact", {
      content: "Uploads go to a local disk",
      written_by: "zed",
      session_id: "s",
      parent_fact_id: root.id,
      supersedes: b.id,
      reason: "no scanner budget"
    })).fact
    expect(await conflicts()).toEqual([[root.id, [c.id, a.id], 2]])
  })

  it("a fact and its parent are not siblings, whichever of their ids sorts first", async () => {
    // The pair is stored smaller id first, and the root's parent is null: with the child's id first,
    // the query once answered siblings = null (parent = null), which the row decode refuses. Two
    // children with ids below and above any root's (written directly: the server's ids are random)
    // give both orders every run.
    const root = await save("Which cache?")
    const at = Date.parse(root.created_at)
    const children = ["00000000-0000-4000-8000-000000000001", "ffffffff-ffff-4fff-bfff-fffffffffffe"]
    await admin.query(relay.graph, createFactsCypher, {
      rows: children.map((id, n) => storedFact(id, `Cache option ${n}`, "zed", "s", at + 1 + n))
    })
    await admin.query(relay.graph, createBuildsOnCypher, { edges: children.map((id) => [id, root.id]) })
    expect(children[0]! < root.id && root.id < children[1]!).toBe(true)
    for (const child of children) {
      const error = await refused("relay_resolve_conflict", compatibleArgs(child, root.id))
      expect(error.code).toBe("invalid_resolution")
      expect(error.message).toContain("siblings")
    }
  })

  it("refuses a compatible record between non-siblings or decided facts, and malformed outcomes", async () => {
    const root = await save("Which queue?")
    const x = await save("Use Kafka", root.id)
    const y = await save("Use NATS", root.id)
    const notSiblings = await refused("relay_resolve_conflict", compatibleArgs(root.id, x.id))
    expect(notSiblings.code).toBe("invalid_resolution")
    expect(notSiblings.message).toContain("siblings")

    // The old call shape (no outcome) still supersedes.
    const decided = await ok("relay_resolve_conflict", {
      winner_fact_id: x.id,
      loser_fact_id: y.id,
      reason: "ops know it",
      resolved_by: "lead"
    })
    expect(decided.outcome).toBe("supersede")
    expect(decided.winner!.id).toBe(x.id)
    const overruled = await refused("relay_resolve_conflict", compatibleArgs(y.id, x.id))
    expect(overruled.code).toBe("invalid_resolution")
    expect(overruled.message).toContain("already supersedes")

    const same = await refused("relay_resolve_conflict", compatibleArgs(x.id, x.id))
    expect(same.code).toBe("invalid_resolution")
    const ghost = await refused("relay_resolve_conflict", compatibleArgs(x.id, randomUUID()))
    expect(ghost.code).toBe("fact_not_found")
    for (
      const args of [
        { outcome: "compatible", winner_fact_id: x.id, loser_fact_id: y.id },
        { outcome: "compatible", fact_ids: [x.id] },
        { fact_ids: [x.id, y.id] },
        { winner_fact_id: x.id },
        { outcome: "merge", fact_ids: [x.id, y.id] }
      ]
    ) {
      const e = await refused("relay_resolve_conflict", { ...args, reason: "r", resolved_by: "lead" })
      expect(e.code, JSON.stringify(args)).toBe("invalid_input")
    }
    const edges = await admin.query<{ n: number }>(
      relay.graph,
      "MATCH (:Fact {id: $x})-[r:COMPATIBLE]-() RETURN count(r) AS n",
      { x: x.id }
    )
    expect(edges[0]?.n).toBe(0)
  }, 60_000)

  it("one call records every pair of a list of siblings; a list with one bad pair writes nothing", async () => {
    const root = await save("What goes into the deploy?")
    const details = []
    for (
      const d of ["Run migrations in CI", "Keep secrets in Vault", "Serve the SPA from S3", "Health check on /healthz"]
    ) {
      details.push(await save(d, root.id))
    }
    const ids = details.map((f) => f.id)
    const other = await save("Unrelated root fact")
    const pairsOf = () => edgesAmong([...ids, other.id])
    const list = (factIds: ReadonlyArray<string>, reason = "separate concerns") => listArgs(factIds, reason)

    // One fact that is no sibling, or a repeated one: refused before any pair is written.
    const stranger = await refused("relay_resolve_conflict", list([...ids, other.id]))
    expect(stranger.code).toBe("invalid_resolution")
    expect(stranger.message).toContain("siblings")
    expect((await refused("relay_resolve_conflict", list([ids[0]!, ids[1]!, ids[0]!]))).code).toBe(
      "invalid_resolution"
    )
    const tooMany = await refused("relay_resolve_conflict", list(Array.from({ length: 11 }, () => ids[0]!)))
    expect(tooMany).toEqual({ code: "invalid_input", message: "fact_ids: must be 2 to 10 fact ids" })
    expect(await pairsOf()).toBe(0)
    expect(await conflicts()).toContainEqual([root.id, [...ids].reverse(), 4])

    const rec = await ok("relay_resolve_conflict", list(ids))
    expect(rec.facts!.map((f) => f.id)).toEqual(ids)
    expect(rec.already_resolved).toBe(false)
    expect(await pairsOf()).toBe(6)
    expect((await conflicts()).some((c) => c[0] === root.id)).toBe(false)

    // A repeat in another order writes nothing new and answers the first record.
    const again = await ok("relay_resolve_conflict", list([...ids].reverse(), "changed my mind"))
    expect(again.already_resolved).toBe(true)
    expect(again.reason).toBe("separate concerns")
    expect(await pairsOf()).toBe(6)

    // A new detail recorded against the four in one more call: only its four pairs are new.
    const fifth = await save("Staging uses port 5433", root.id)
    expect(await conflicts()).toContainEqual([root.id, [fifth.id, ...[...ids].reverse()], 5])
    const more = await ok("relay_resolve_conflict", list([fifth.id, ...ids]))
    expect(more.already_resolved).toBe(false)
    expect((await conflicts()).some((c) => c[0] === root.id)).toBe(false)
  }, 60_000)

  it(
    "a list with recorded pairs: answers this call's record, keeps a pair decided since, refuses a reused request_id",
    async () => {
      const root = await save("How do we ship the mobile app?")
      const [a, b, c, d] = [
        await save("Ship through TestFlight first", root.id),
        await save("Ship Android through the Play beta", root.id),
        await save("Tag every release in git", root.id),
        await save("Write release notes per build", root.id)
      ] as const
      const record = (ids: ReadonlyArray<string>, reason: string, by: string, requestId?: string) =>
        relay.call("relay_resolve_conflict", listArgs(ids, reason, by, requestId))
      const edges = () => edgesAmong([a.id, b.id, c.id, d.id])

      expect((await record([a.id, b.id], "two stores", "alice")).isError).toBeFalsy()
      // b later loses to a: the recorded pair still stands when named again, alone or in a list.
      await ok("relay_resolve_conflict", {
        winner_fact_id: a.id,
        loser_fact_id: b.id,
        reason: "iOS first",
        resolved_by: "lead"
      })
      const repeat = outputOf(await record([b.id, a.id], "again", "bob"))
      expect([repeat.already_resolved, repeat.reason, repeat.resolved_by]).toEqual([true, "two stores", "alice"])

      // bob's list adds new pairs to alice's: the answer is bob's record, not alice's older one.
      const bobs = outputOf(await record([a.id, c.id, d.id], "release hygiene", "bob"))
      expect([bobs.already_resolved, bobs.reason, bobs.resolved_by]).toEqual([false, "release hygiene", "bob"])
      expect(await edges()).toBe(4)

      // A request_id that recorded a pair with one reason cannot record more pairs with another: nothing is written.
      const requestId = randomUUID()
      expect((await record([b.id, c.id], "first words", "carol", requestId)).isError).toBeFalsy()
      expect(await edges()).toBe(5)
      const reused = await refused(
        "relay_resolve_conflict",
        listArgs([b.id, c.id, d.id], "other words", "carol", requestId)
      )
      expect(reused.code).toBe("invalid_input")
      expect(await edges()).toBe(5)
      // The same request with its own reason is a retry: the new pairs land, the answer is its record.
      const retry = outputOf(await record([b.id, c.id, d.id], "first words", "carol", requestId))
      expect([retry.already_resolved, retry.reason]).toEqual([false, "first words"])
      expect(await edges()).toBe(6)
    },
    60_000
  )

  it("a retracted child takes no part in conflicts (Retraction made by direct Cypher)", async () => {
    const root = await save("Where do logs go?")
    const p = await save("Logs go to Loki", root.id)
    const q = await save("Logs go to Elasticsearch", root.id)
    const r = await save("Logs go to S3", root.id)
    expect(await conflicts()).toContainEqual([root.id, [r.id, q.id, p.id], 3])
    const retract = async (id: string) =>
      (await admin.query<{ at: number }>(
        relay.graph,
        "MATCH (:RelayClock {id: 0})-[clk:CLOCK]->(), (f:Fact {id: $id}) WITH clk, f, clk.last + 1 AS at SET clk.last = at " +
          "CREATE (:Retraction {id: $rid, reason: 'wrong', retracted_by: 'lead', created_at: at})-[:RETRACTS {created_at: at}]->(f) RETURN at",
        { id, rid: randomUUID() }
      ))[0]!.at
    const at = await retract(r.id)
    expect(await conflicts()).toContainEqual([root.id, [q.id, p.id], 2])
    // Before the retraction it still took part.
    expect(await conflicts({ as_of: new Date(at - 1).toISOString() })).toContainEqual([root.id, [r.id, q.id, p.id], 3])
    await retract(q.id)
    expect((await conflicts()).some((c) => c[0] === root.id)).toBe(false)
  }, 60_000)
})
