import { expect, layer } from "@effect/vitest"
import { Effect, Runtime } from "effect"
import { ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

const save = (content: string, extra: Record<string, unknown> = {}) =>
  ok("relay_save_fact", { content, written_by: "claude-desktop", session_id: "s1", ...extra })

/**
 * Each call runs in a fiber of its own, as the MCP edge runs them. Every statement on a graph waits
 * for the graph's schema check, which the graph's first statement forks; joining that fiber once
 * handed every later call the first call's context, its ToolCall id included, so a save whose prefix
 * lookup ran before it read its id took the id of the fact the first call made, and was refused as a
 * reused request_id.
 */
layer(relayTestLayer("call_context"))("a call's context is its own", (it) => {
  it.effect("saves naming a parent or a superseded fact by short id, each call in its own fiber, get ids of their own", () =>
    Effect.gen(function*() {
      const runtime = yield* Effect.runtime<Effect.Effect.Context<ReturnType<typeof save>>>()
      const call = <A>(effect: Effect.Effect<A, never, Effect.Effect.Context<ReturnType<typeof save>>>) =>
        Effect.promise(() => Runtime.runPromise(runtime)(effect))
      // The graph's first statement comes from this call, in its own fiber.
      const root = yield* call(save("Sessions live in Redis"))
      const child = yield* call(save("Sessions expire after 30 days", { parent_fact_id: root.fact.id.slice(0, 8) }))
      expect(child.fact.parent_id).toBe(root.fact.id)
      const revised = yield* call(save("Sessions expire after 14 days", {
        supersedes: child.fact.id.slice(0, 8),
        reason: "a shorter window"
      }))
      expect(revised.revision!.superseded.id).toBe(child.fact.id)
      expect(new Set([root.fact.id, child.fact.id, revised.fact.id]).size).toBe(3)
    }))
})
