import { describe, expect, it } from "@effect/vitest"
import { FalkorDB } from "falkordb"
import { inject } from "vitest"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { testGraphName } from "../support/testLayer.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

/**
 * The demo story through the real MCP stdio client: two assistants (two Relay processes on one
 * graph) fork under one decision; detect finds it, resolve settles it and lists the stale facts,
 * impact on the loser shows the same, the other assistant's briefing shows the new facts and the
 * decision; importance ranks the root first; clusters group the threads.
 */
const ok = async <N extends string>(client: RelayClient, name: N, args: Record<string, unknown>) => {
  const r = await client.call(name, args)
  expect(r.isError, `${name}: ${r.content[0]?.text}`).toBeFalsy()
  expect(r.content[0]?.text?.split("\n")[0]).toMatch(/not instructions/)
  return outputOf(r)
}

describe("the five disagreement tools over stdio", () => {
  it("fork, detect, resolve, impact, briefing, importance, clusters", async () => {
    const graph = testGraphName("demo")
    const env = { RELAY_RATE_LIMIT: "100000" }
    const [claude, cursor] = await Promise.all([
      connectRelay({ graph, env, name: "claude-desktop" }),
      connectRelay({ graph, env, name: "cursor" })
    ])
    try {
      const as = (who: "claude-desktop" | "cursor") => (content: string, parent?: string) =>
        ok(who === "claude-desktop" ? claude : cursor, "relay_save_fact", {
          content,
          written_by: who,
          session_id: `${who}-demo`,
          ...(parent === undefined ? {} : { parent_fact_id: parent })
        })
      const c = as("claude-desktop")
      const k = as("cursor")

      const cursorStart = await ok(cursor, "relay_get_briefing", { my_name: "cursor" })
      expect(cursorStart.new_facts).toEqual([])

      const root = (await c("Decision: sessions use short-lived JWTs with refresh tokens")).fact
      const cookies = (await c("Keep refresh tokens in httpOnly cookies", root.id)).fact
      const redis = await k("Keep refresh tokens in Redis", root.id)
      expect(redis.fork!.parent_id).toBe(root.id)
      expect(redis.fork!.siblings.map((s) => s.id)).toEqual([cookies.id])
      const ttl = (await k("Redis key TTL equals the refresh token lifetime", redis.fact.id)).fact
      const evict = (await k("Evict keys on logout", ttl.id)).fact
      const cookieFlags = (await c("Cookies are SameSite=Strict", cookies.id)).fact

      const detected = await ok(claude, "relay_detect_conflicts", {})
      expect(detected.conflicts.map((x) => [x.parent.id, x.children.map((f) => f.id), x.children_total]))
        .toEqual([[root.id, [redis.fact.id, cookies.id], 2]])

      const resolved = await ok(claude, "relay_resolve_conflict", {
        winner_fact_id: cookies.id,
        loser_fact_id: redis.fact.id,
        reason: "No extra service to run; cookies are enough",
        resolved_by: "claude-desktop"
      })
      expect(resolved.already_resolved).toBe(false)
      expect(resolved.loser!.status).toBe("superseded")
      const stale = resolved.stale.map((d) => [d.fact.id, d.distance, d.fact.status])
      expect(stale).toEqual([[ttl.id, 1, "stale"], [evict.id, 2, "stale"]])

      const again = await ok(cursor, "relay_resolve_conflict", {
        winner_fact_id: cookies.id,
        loser_fact_id: redis.fact.id,
        reason: "second opinion",
        resolved_by: "cursor"
      })
      expect(again).toMatchObject({ already_resolved: true, reason: "No extra service to run; cookies are enough" })
      const reversed = await cursor.call("relay_resolve_conflict", {
        winner_fact_id: redis.fact.id,
        loser_fact_id: cookies.id,
        reason: "Redis after all",
        resolved_by: "cursor"
      })
      expect(reversed.isError).toBe(true)
      expect(errorOf(reversed).code).toBe("invalid_resolution")

      const impact = await ok(cursor, "relay_get_impact", { fact_id: redis.fact.id })
      expect(impact.dependents.map((d) => [d.fact.id, d.distance, d.fact.status])).toEqual(stale)
      expect((await ok(cursor, "relay_detect_conflicts", {})).conflicts).toEqual([])

      const briefing = await ok(cursor, "relay_get_briefing", { my_name: "cursor", since: cursorStart.as_of })
      expect(briefing.new_facts.map((f) => f.id)).toEqual([root.id, cookies.id, cookieFlags.id])
      expect(briefing.decisions).toHaveLength(1)
      expect(briefing.decisions[0]).toMatchObject({
        winner: { id: cookies.id },
        loser: { id: redis.fact.id, status: "superseded" },
        reason: "No extra service to run; cookies are enough",
        resolved_by: "claude-desktop"
      })
      expect(briefing.open_conflicts).toEqual([])
      // Claude's own briefing has cursor's facts and none of its own, and not its own decision.
      const claudeView = await ok(claude, "relay_get_briefing", { my_name: "claude-desktop", since: cursorStart.as_of })
      expect(claudeView.new_facts.map((f) => f.id)).toEqual([redis.fact.id, ttl.id, evict.id])
      expect(claudeView.decisions).toEqual([])

      // Another thread, settled across threads: SUPERSEDES alone joins it into one cluster.
      const q1 = (await k("Queue: use SQS")).fact
      const q2 = (await c("Queue: use NATS")).fact
      const lone = (await c("The office closes at six")).fact
      await ok(cursor, "relay_resolve_conflict", {
        winner_fact_id: q2.id,
        loser_fact_id: q1.id,
        reason: "self-hosted",
        resolved_by: "cursor"
      })

      const important = await ok(claude, "relay_get_important_facts", { limit: 3 })
      expect(important.facts).toHaveLength(3)
      expect(important.facts[0]!.fact.id).toBe(root.id)
      const scores = important.facts.map((f) => f.score)
      expect([...scores].sort((x, y) => y - x)).toEqual(scores)

      const clusters = await ok(claude, "relay_get_clusters", {})
      expect(clusters.clusters.map((cl) => cl.facts.map((f) => f.id))).toEqual([
        [root.id, cookies.id, redis.fact.id, ttl.id, evict.id, cookieFlags.id],
        [q1.id, q2.id],
        [lone.id]
      ])
      expect(clusters.clusters.map((cl) => cl.size)).toEqual([6, 2, 1])
      expect(clusters.clusters[0]!.facts.map((f) => f.status)).toEqual([
        "active",
        "active",
        "superseded",
        "stale",
        "stale",
        "active"
      ])
    } finally {
      await Promise.all([claude.close(), cursor.close()])
      const { host, password, port } = inject("falkordb")
      const db = await FalkorDB.connect({ socket: { host, port }, password })
      await db.selectGraph(graph).delete().catch(() => undefined)
      await db.close()
    }
  }, 60_000)
})
