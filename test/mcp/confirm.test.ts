import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { requestIdMessage } from "../../src/domain/requestId.js"
import { confirmMessage, confirmSpecialsCap } from "../../src/domain/rules.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import { checkedCaller } from "./protocol.js"

/**
 * relay_confirm_fact through the SDK's Client (issue 23, item 3): a revision of a timeout
 * made stale the facts saved under it as "next in the thread"; one confirmation each brings them
 * and what builds on them back to every default read, the past still reads as it was, a later
 * change above makes them stale again, and a repeat, a retry or a refused call writes nothing.
 */
describe("relay_confirm_fact", () => {
  let relay: RelayClient
  let admin: Admin
  let mcp: Awaited<ReturnType<typeof checkedCaller>>

  const save = (content: string, extra: Record<string, unknown> = {}) =>
    mcp.ok("relay_save_fact", { content, written_by: "zed", session_id: "confirm", ...extra })
  const confirmations = async () =>
    (await admin.query<{ n: number }>(relay.graph, "MATCH (c:Confirmation) RETURN count(c) AS n", {}))[0]?.n

  beforeAll(async () => {
    // The cap test below makes ~70 writes in a row: past the default 120 calls a minute with the rest.
    ;[relay, admin] = await Promise.all([connectRelay({ env: { RELAY_RATE_LIMIT: "100000" } }), connectAdmin()])
    mcp = await checkedCaller(relay)
  })
  afterAll(async () => {
    await relay?.close()
    if (relay !== undefined) await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await admin?.close()
  })

  it("brings a stale fact and what builds on it through it back; the past and later changes read right", async () => {
    const db = (await save("Postgres is the primary database")).fact.id
    const timeout = (await save("statement timeout 5 s", { parent_fact_id: db, kind: "choice" })).fact.id
    const index = (await save("invoice export has an index on (customer, month)", {
      parent_fact_id: timeout,
      kind: "detail"
    })).fact.id
    const csv = (await save("invoice export writes CSV", { parent_fact_id: index, kind: "detail" })).fact.id
    const pool = (await save("pool size follows the timeout", { parent_fact_id: timeout, kind: "detail" })).fact.id

    const revision = await mcp.call("relay_save_fact", {
      content: "statement timeout 15 s",
      written_by: "zed",
      session_id: "confirm",
      supersedes: timeout,
      reason: "reports time out"
    })
    const revised = revision.structuredContent as Awaited<ReturnType<typeof save>>
    expect(revised.revision?.stale.map((d) => d.fact.id).sort()).toEqual([index, csv, pool].sort())
    expect(mcp.text(revision)).toContain("One that still holds: relay_confirm_fact on it.")
    const hidden = await mcp.ok("relay_search", { query: "invoice export" })
    expect(hidden.hits).toEqual([])
    const staleBefore = new Date(Date.parse(revised.fact.created_at) - 1).toISOString()

    const call = await mcp.call("relay_confirm_fact", {
      fact_id: index.slice(0, 8),
      reason: "the index does not depend on the timeout",
      confirmed_by: "zed"
    })
    const confirmed = await mcp.ok("relay_confirm_fact", {
      fact_id: index,
      reason: "the index does not depend on the timeout",
      confirmed_by: "zed"
    })
    expect(call.isError).toBeFalsy()
    const first = call.structuredContent as typeof confirmed
    expect([first.fact.status, first.refreshed, first.already_confirmed]).toEqual(["active", 1, false])
    expect(mcp.text(call)).toContain("1 fact built on it turned current with it")
    // A second call (another agent, or a retry without request_id) answers the same record.
    expect([confirmed.already_confirmed, confirmed.confirmation_id, confirmed.created_at])
      .toEqual([true, first.confirmation_id, first.created_at])
    expect(await confirmations()).toBe(1)

    const found = await mcp.ok("relay_search", { query: "invoice export" })
    expect(found.hits.map((h) => [h.fact.id, h.fact.status]).sort()).toEqual(
      [[index, "active"], [csv, "active"]].sort()
    )
    // The pool fact was not confirmed: still stale. As of before the confirmation, all three were.
    const stale = await mcp.ok("relay_get_current_state", { status: "stale" })
    expect(stale.facts.map((f) => f.id)).toEqual([pool])
    const earlier = await mcp.ok("relay_get_current_state", {
      status: "stale",
      as_of: new Date(Date.parse(first.created_at) - 1).toISOString()
    })
    expect(earlier.facts.map((f) => f.id).sort()).toEqual([index, csv, pool].sort())
    expect((await mcp.ok("relay_get_context", { fact_id: csv, as_of: staleBefore })).chain.map((f) => f.status))
      .toEqual(["active", "active", "active", "active"])

    // A later change above makes them stale again: the confirmation covered only what came before it.
    const newDb = await save("MySQL is the primary database", { supersedes: db, reason: "the team moved" })
    expect(newDb.revision?.stale.map((d) => d.fact.id)).toContain(index)
    expect((await mcp.ok("relay_get_context", { fact_id: csv })).chain.map((f) => f.status))
      .toEqual(["superseded", "superseded", "stale", "stale"])
    const again = await mcp.ok("relay_confirm_fact", { fact_id: index, reason: "still holds", confirmed_by: "zed" })
    expect([again.already_confirmed, again.refreshed]).toEqual([false, 1])
    expect(await confirmations()).toBe(2)
  })

  it("retries with a request_id answer the first call; refusals name the rule and write nothing", async () => {
    const root = (await save("deploys go through CI")).fact.id
    const step = (await save("CI runs on GitHub Actions", { parent_fact_id: root, kind: "choice" })).fact.id
    const leaf = (await save("the runner image is ubuntu-24.04", { parent_fact_id: step, kind: "detail" })).fact.id
    const before = await confirmations()

    expect(await mcp.fails("relay_confirm_fact", { fact_id: leaf, reason: "fine", confirmed_by: "zed" })).toEqual({
      code: "invalid_resolution",
      message: confirmMessage.not_stale
    })
    await mcp.ok("relay_retract_fact", { fact_id: root, reason: "deploys are manual", retracted_by: "zed" })
    expect(await mcp.fails("relay_confirm_fact", { fact_id: root, reason: "fine", confirmed_by: "zed" })).toEqual({
      code: "invalid_resolution",
      message: confirmMessage.decided
    })
    const missing = await mcp.fails("relay_confirm_fact", {
      fact_id: "00000000-0000-4000-8000-000000000000",
      reason: "fine",
      confirmed_by: "zed"
    })
    expect(missing.code).toBe("fact_not_found")
    expect((await mcp.fails("relay_confirm_fact", { fact_id: step, reason: " ", confirmed_by: "zed" })).message)
      .toMatch(/^reason: /)
    expect(await confirmations()).toBe(before)

    const args = { fact_id: step, reason: "CI still runs there", confirmed_by: "zed", request_id: "confirm-ci-1" }
    const first = await mcp.ok("relay_confirm_fact", args)
    const retry = await mcp.ok("relay_confirm_fact", args)
    expect([first.already_confirmed, first.refreshed, retry.already_confirmed, retry.refreshed])
      .toEqual([false, 1, false, 0])
    expect(retry.confirmation_id).toBe(first.confirmation_id)
    expect((await mcp.fails("relay_confirm_fact", { ...args, reason: "another reason" })).code).toBe("invalid_input")
    expect(await confirmations()).toBe(before! + 1)
    // The same request_id on another fact names another confirmation: refused, not a second record with its id.
    const other = (await save("CI caches node_modules", { parent_fact_id: root, kind: "detail" })).fact.id
    expect(await mcp.fails("relay_confirm_fact", { ...args, fact_id: other })).toEqual({
      code: "invalid_input",
      message: requestIdMessage.confirmElsewhere
    })
    expect(await confirmations()).toBe(before! + 1)
  })

  it("a repeated retraction, resolve or retried revision above does not undo a confirmation", async () => {
    const root = (await save("releases are cut on Mondays")).fact.id
    const rival = (await save("releases are cut on Fridays")).fact.id
    const step = (await save("the changelog is generated", { parent_fact_id: root, kind: "detail" })).fact.id
    const leaf = (await save("from conventional commits", { parent_fact_id: step, kind: "detail" })).fact.id
    const statuses = async () => (await mcp.ok("relay_get_context", { fact_id: leaf })).chain.map((f) => f.status)

    const retract = { fact_id: root, reason: "no fixed day", retracted_by: "zed" }
    await mcp.ok("relay_retract_fact", retract)
    await mcp.ok("relay_confirm_fact", { fact_id: step, reason: "still generated", confirmed_by: "zed" })
    expect(await statuses()).toEqual(["retracted", "active", "active"])
    expect((await mcp.ok("relay_retract_fact", retract)).already_retracted).toBe(true)
    expect(await statuses()).toEqual(["retracted", "active", "active"])

    const resolve = { winner_fact_id: rival, loser_fact_id: root, reason: "Friday it is", resolved_by: "zed" }
    const decided = await mcp.ok("relay_resolve_conflict", resolve)
    expect(await statuses()).toEqual(["retracted", "stale", "stale"]) // a new decision above: stale again
    await mcp.ok("relay_confirm_fact", { fact_id: step, reason: "still generated", confirmed_by: "zed" })
    expect((await mcp.ok("relay_resolve_conflict", resolve)).already_resolved).toBe(true)
    expect(await statuses()).toEqual(["retracted", "active", "active"])
    expect(decided.created_at).toBeDefined()

    const revise = {
      content: "the changelog is written by hand",
      written_by: "zed",
      session_id: "confirm",
      supersedes: step,
      reason: "generated notes were noise",
      request_id: "revise-changelog-1"
    }
    await mcp.ok("relay_save_fact", revise)
    expect((await statuses()).slice(2)).toEqual(["stale"])
    await mcp.ok("relay_confirm_fact", { fact_id: leaf, reason: "commits stay conventional", confirmed_by: "zed" })
    expect(await mcp.ok("relay_save_fact", revise)).toBeDefined() // the retry answers what landed
    expect((await statuses()).slice(2)).toEqual(["active"])
  })

  it("refuses a confirmation over more decided facts than one statement recomputes, and writes nothing", async () => {
    const top = (await save("the mobile app ships weekly")).fact.id
    let parent = (await save("builds run on Bitrise", { parent_fact_id: top, kind: "detail" })).fact.id
    const chain: Array<string> = []
    for (let i = 0; i <= confirmSpecialsCap; i++) {
      parent = (await save(`build step ${i}`, { parent_fact_id: parent, kind: "detail" })).fact.id
      chain.push(parent)
    }
    for (const id of chain) await mcp.ok("relay_retract_fact", { fact_id: id, reason: "dropped", retracted_by: "zed" })
    await mcp.ok("relay_retract_fact", { fact_id: top, reason: "no fixed cadence", retracted_by: "zed" })
    const before = await confirmations()
    const first = (await mcp.ok("relay_get_context", { fact_id: chain[0]!, limit: 2 })).chain[0]!.id
    expect(await mcp.fails("relay_confirm_fact", { fact_id: first, reason: "still there", confirmed_by: "zed" }))
      .toEqual({ code: "invalid_resolution", message: confirmMessage.too_many })
    expect(await confirmations()).toBe(before)
  })
})
