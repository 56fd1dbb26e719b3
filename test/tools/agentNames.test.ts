import { expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, TestClock } from "effect"
import { FalkorDB } from "falkordb"
import { inject } from "vitest"
import { tokenStack } from "../../src/layers/assembly/stacks.js"
import { ensureSchema } from "../../src/layers/database/graphIndexes.js"
import { TokenStore } from "../../src/services/TokenStore.js"
import { ownGraph, raw } from "../support/ownGraph.js"
import { ok, runTool } from "../support/runTool.js"
import { relayTestLayer, testSettings } from "../support/testLayer.js"

/**
 * Names compare without case everywhere a name is matched (issue 41, point 8): "Cursor" and
 * "cursor" are one writer, one reader with one briefing place, one holder; shown as first written.
 */
layer(relayTestLayer("agent_names"))("names without case", (it) => {
  it.effect("a writer, a reader and a holder are one name whatever its case, shown as first written", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-06-01T00:00:00Z"))
      const first = yield* ok("relay_save_fact", {
        content: "The session store is Redis 7",
        written_by: "Cursor",
        session_id: "s1"
      })
      const second = yield* ok("relay_save_fact", {
        content: "Sessions expire after 30 minutes of idleness",
        written_by: "cursor",
        session_id: "s2",
        parent_fact_id: first.fact.id
      })
      expect(second.fact.written_by).toBe("Cursor")
      yield* ok("relay_save_fact", { content: "The API speaks JSON only", written_by: "claude", session_id: "s3" })
      // The reader's own facts are skipped whatever case it briefs with.
      const brief = yield* ok("relay_get_briefing", { my_name: "CURSOR" })
      expect(brief.new_facts.map((f) => f.written_by)).toEqual(["claude"])
      // One briefing place: a second spelling continues where the first stopped.
      yield* TestClock.adjust(1_000)
      const again = yield* ok("relay_get_briefing", { my_name: "cursor" })
      expect(again.new_facts).toEqual([])
      // A filter finds the writer's facts under any case.
      const found = yield* ok("relay_search", { query: "session", written_by: "cURSOR" })
      expect(found.hits.map((r) => r.fact.written_by)).toEqual(["Cursor", "Cursor"])

      const posted = yield* ok("relay_post_task", { title: "rotate the session key", written_by: "Ann" })
      const claim = yield* ok("relay_claim_task", { claimed_by: "Cursor", task_id: posted.task.id })
      expect(claim.task?.claimed_by).toBe("Cursor")
      // The holder under another case heartbeats, is listed, and finishes.
      yield* ok("relay_claim_task", {
        claimed_by: "cursor",
        task_id: posted.task.id,
        fencing_token: claim.fencing_token!
      })
      const held = yield* ok("relay_list_tasks", { claimed_by: "CURSOR" })
      expect(held.tasks.map((t) => t.id)).toEqual([posted.task.id])
      const done = yield* runTool("relay_finish_task", {
        task_id: posted.task.id,
        claimed_by: "cursor",
        fencing_token: claim.fencing_token!,
        outcome: "done"
      })
      expect(done.isError).toBeUndefined()
      // The board names who did it, not only who posted it.
      expect(done.content[0]?.text).toMatch(/\[done\] "rotate the session key" by Ann .*; done by Cursor$/)
    }))
})

it.live("two briefing places of one reader merge, the earlier position kept under the first spelling", () =>
  Effect.scoped(Effect.gen(function*() {
    const graph = yield* ownGraph("agent_names_places")
    yield* Effect.promise(() =>
      raw(
        graph,
        "CREATE (a:BriefingCursor {name: 'Cursor'})-[:READ_TO {as_of: 200}]->(a) " +
          "CREATE (b:BriefingCursor {name: 'cursor'})-[:READ_TO {as_of: 100}]->(b) " +
          "CREATE (c:BriefingCursor {name: 'claude'})-[:READ_TO {as_of: 300}]->(c)"
      )
    )
    const { host, password, port } = inject("falkordb")
    const client = yield* Effect.acquireRelease(
      Effect.promise(() => FalkorDB.connect({ socket: { host, port }, password })),
      (c) => Effect.promise(() => c.close())
    )
    yield* ensureSchema(client.selectGraph(graph))
    const places = yield* Effect.promise(() =>
      raw(graph, "MATCH (c:BriefingCursor)-[r:READ_TO]->(c) RETURN c.name AS name, r.as_of AS at ORDER BY name")
    )
    expect(places.data).toEqual([{ name: "Cursor", at: 100 }, { name: "claude", at: 300 }])
    const agents = yield* Effect.promise(() => raw(graph, "MATCH (a:Agent) RETURN a.key AS key, a.name AS name"))
    expect(agents.data).toEqual([{ key: "cursor", name: "Cursor" }])
  })))

it.live("a token name that differs from another only in case is refused", () =>
  Effect.scoped(Effect.gen(function*() {
    const graph = yield* ownGraph("agent_names_tokens")
    yield* Effect.provide(
      Effect.gen(function*() {
        const tokens = yield* TokenStore
        yield* tokens.create({ name: "alice-cursor", workspace: "acme", readOnly: false })
        const refused = yield* Effect.exit(tokens.create({ name: "Alice-Cursor", workspace: "acme", readOnly: false }))
        expect(Exit.isFailure(refused) && JSON.stringify(refused.cause)).toMatch(/name: differs only in case/)
        // The same name again is another token of that name (a second device), as before.
        yield* tokens.create({ name: "alice-cursor", workspace: "acme", readOnly: true })
        expect((yield* tokens.list).map((t) => t.name)).toEqual(["alice-cursor", "alice-cursor"])
      }),
      tokenStack(testSettings(graph)).pipe(
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["RELAY_TOKEN_GRAPH", graph]]))))
      )
    )
  })))
