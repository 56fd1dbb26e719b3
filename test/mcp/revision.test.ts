import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { resolutionMessage, revisionMessage } from "../../src/domain/rules.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import { checkedCaller } from "./protocol.js"

/**
 * Kinds and one-call revisions through the SDK's Client to Relay in process: a detail
 * makes no conflict, a revision is one call whose reply lists (paged on through relay_get_impact)
 * only what it made stale, a refused resolve names the call that does what was meant, and bad
 * input names its field and writes nothing.
 */
describe("kind and supersedes on relay_save_fact", () => {
  let relay: RelayClient
  let admin: Admin
  let mcp: Awaited<ReturnType<typeof checkedCaller>>

  const save = (content: string, extra: Record<string, unknown> = {}) =>
    mcp.ok("relay_save_fact", { content, written_by: "zed", session_id: "revision", ...extra })
  const facts = async () =>
    (await admin.query<{ n: number }>(relay.graph, "MATCH (f:Fact) RETURN count(f) AS n", {}))[0]?.n

  beforeAll(async () => {
    ;[relay, admin] = await Promise.all([connectRelay(), connectAdmin()])
    mcp = await checkedCaller(relay)
  })
  afterAll(async () => {
    await relay?.close()
    if (relay !== undefined) await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await admin?.close()
  })

  it("details never fork; two choices about the same thing do, and the reply names the compatible call", async () => {
    const app = (await save("The web app is a React 18 single-page app")).fact.id
    const flags = await save("Feature flags come from LaunchDarkly", { parent_fact_id: app, kind: "detail" })
    expect(flags.fork).toBeNull()
    const i18n = await save("Strings go through i18next", { parent_fact_id: app, kind: "detail" })
    expect(i18n.fork).toBeNull()
    const vite = await save("Bundle builds with Vite", { parent_fact_id: app, kind: "choice" })
    expect(vite.fork).toBeNull()
    const webpack = await mcp.call("relay_save_fact", {
      content: "Bundle builds with webpack",
      written_by: "cursor",
      session_id: "revision",
      parent_fact_id: app,
      kind: "choice"
    })
    const out = webpack.structuredContent as unknown as { fork: { siblings: Array<{ id: string }> } }
    expect(out.fork.siblings.map((f) => f.id)).toEqual([vite.fact.id])
    expect(mcp.text(webpack)).toContain(`If all can hold: relay_resolve_conflict outcome "compatible", fact_ids [`)
    const conflicts = await mcp.ok("relay_detect_conflicts", {})
    const under = conflicts.conflicts.find((c) => c.parent.id === app)
    expect(under?.children.map((f) => f.id).sort()).toEqual(
      [vite.fact.id, (webpack.structuredContent as unknown as { fact: { id: string } }).fact.id].sort()
    )
  })

  it("a revision is one call: saved beside the old fact, superseding it, listing only what it made stale", async () => {
    const db = (await save("Postgres is the database")).fact.id
    const five = (await save("statement timeout 5 s", { parent_fact_id: db, kind: "choice" })).fact.id
    const index = (await save("Index on invoices.created_at", { parent_fact_id: five, kind: "detail" })).fact.id
    const kept = (await save("Slow query log over 1 s", { parent_fact_id: five, kind: "detail" })).fact.id
    const deep = (await save("Alert when the log grows", { parent_fact_id: kept, kind: "detail" })).fact.id
    // Already stale before the revision: it is not listed as made stale by it.
    const issued = (await save("Index on invoices.issued_at", { parent_fact_id: five })).fact.id
    await mcp.ok("relay_resolve_conflict", {
      outcome: "supersede",
      winner_fact_id: issued,
      loser_fact_id: index,
      reason: "issued_at is what reports filter on",
      resolved_by: "zed"
    })
    const below = (await save("Reindex nightly", { parent_fact_id: index, kind: "detail" })).fact.id
    const before = await facts()
    const call = await mcp.call("relay_save_fact", {
      content: "statement timeout 15 s",
      written_by: "zed",
      session_id: "revision",
      kind: "choice",
      supersedes: five,
      reason: "5 s cut off the monthly export",
      request_id: "timeout-15"
    })
    expect(call.isError).toBeFalsy()
    const r = call.structuredContent as unknown as {
      fact: { id: string; parent_id: string }
      fork: unknown
      revision: {
        superseded: { id: string; status: string }
        stale: Array<{ fact: { id: string } }>
        stale_total: number
        stale_next_cursor: string | null
      }
    }
    expect(await facts()).toBe(before! + 1)
    expect(r.fact.parent_id).toBe(db)
    expect(r.fork).toBeNull()
    expect(r.revision.superseded).toMatchObject({ id: five, status: "superseded" })
    const made = [index, kept, deep, issued].sort()
    expect(r.revision.stale_total).toBe(4)
    expect(r.revision.stale.map((d) => d.fact.id).sort()).toEqual(made)
    expect(r.revision.stale.map((d) => d.fact.id)).not.toContain(below)
    const text = mcp.text(call)
    expect(text).toContain("Supersedes: ")
    expect(text).toContain("Made stale (built on it), by distance (4):")
    // The decision is in the graph once, written by the same statement (same stamp as the fact).
    const edges = await admin.query<{ n: number; same: boolean }>(
      relay.graph,
      "MATCH (w:Fact {id: $w})-[r:SUPERSEDES]->(l:Fact {id: $l}) RETURN count(r) AS n, min(r.created_at = w.created_at) AS same",
      { w: r.fact.id, l: five }
    )
    expect(edges[0]).toEqual({ n: 1, same: true })
    // A retry answers the same fact; the same request_id with another reason or kind writes nothing.
    const again = await mcp.ok("relay_save_fact", {
      content: "statement timeout 15 s",
      written_by: "zed",
      session_id: "revision",
      kind: "choice",
      supersedes: five,
      reason: "5 s cut off the monthly export",
      request_id: "timeout-15"
    })
    expect(again.fact.id).toBe(r.fact.id)
    for (const changed of [{ reason: "other" }, { kind: "detail" }, { supersedes: kept }]) {
      const e = await mcp.fails("relay_save_fact", {
        content: "statement timeout 15 s",
        written_by: "zed",
        session_id: "revision",
        kind: "choice",
        supersedes: five,
        reason: "5 s cut off the monthly export",
        request_id: "timeout-15",
        ...changed
      })
      expect(e.code).toBe("invalid_input")
      expect(e.message).toMatch(/^request_id: /)
    }
    expect(await facts()).toBe(before! + 1)
  })

  it("a revision of a root is a root, and lists every fact under the old root", async () => {
    const root = (await save("Exports run as CSV")).fact.id
    const children = []
    for (const n of [1, 2, 3]) {
      children.push((await save(`Column ${n} is quoted`, { parent_fact_id: root, kind: "detail" })).fact.id)
    }
    const r = await mcp.ok("relay_save_fact", {
      content: "Exports run as Parquet",
      written_by: "zed",
      session_id: "revision",
      supersedes: root,
      reason: "CSV lost types"
    })
    expect(r.fact.parent_id).toBeNull()
    expect(r.revision?.stale.length).toBe(3)
    expect(r.revision?.stale_next_cursor).toBeNull()
  })

  it("a nothing-new briefing costs <= 100 o200k tokens in text and in structuredContent, open conflicts only counted", async () => {
    // The earlier tests left an open conflict (vite / webpack): a reader who has seen it is told its count only.
    await mcp.ok("relay_get_briefing", { my_name: "reader" })
    const again = await mcp.call("relay_get_briefing", { my_name: "reader" })
    const out = again.structuredContent as unknown as { open_conflicts: Array<unknown>; unchanged_conflicts: number }
    expect(out.open_conflicts).toEqual([])
    expect(out.unchanged_conflicts).toBeGreaterThan(0)
    expect(countTokens(mcp.text(again))).toBeLessThanOrEqual(100)
    expect(countTokens(JSON.stringify(again.structuredContent))).toBeLessThanOrEqual(100)
  })

  it("refuses bad revisions naming the field, writing nothing; a refused resolve names the call to make", async () => {
    const root = (await save("Tokens live in Redis")).fact.id
    const child = (await save("Tokens expire after 1 h", { parent_fact_id: root, kind: "detail" })).fact.id
    const before = await facts()
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ supersedes: root }, "invalid_input", revisionMessage.reason_needed],
      [{ reason: "why" }, "invalid_input", revisionMessage.reason_alone],
      [
        { supersedes: root, reason: "why", parent_fact_id: child },
        "invalid_input",
        revisionMessage.parent_builds_on_revised
      ],
      [
        { supersedes: root, reason: "why", parent_fact_id: root },
        "invalid_input",
        revisionMessage.parent_builds_on_revised
      ],
      [{ supersedes: "00000000-0000-4000-8000-000000000000", reason: "why" }, "fact_not_found", "supersedes: "],
      [{ kind: "maybe" }, "invalid_input", "kind"]
    ]
    for (const [extra, code, message] of cases) {
      const e = await mcp.fails("relay_save_fact", {
        content: "Tokens live in Postgres",
        written_by: "zed",
        session_id: "revision",
        ...extra
      })
      expect([e.code, e.message.startsWith(message) || e.message.includes(message)], JSON.stringify(extra))
        .toEqual([code, true])
    }
    expect(await facts()).toBe(before)
    const refused = await mcp.fails("relay_resolve_conflict", {
      winner_fact_id: child,
      loser_fact_id: root,
      reason: "newer",
      resolved_by: "zed"
    })
    expect(refused.message).toBe(resolutionMessage.builds_on_each_other)
    expect(refused.message).toContain("relay_save_fact with the new content, supersedes")
  })
})
