import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ok, runTool } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"
import { outputOf } from "../support/toolOutputs.js"

const save = (content: string, extra: Record<string, unknown> = {}) =>
  ok("relay_save_fact", { content, written_by: "claude-desktop", session_id: "s1", ...extra })

/** Clusters are kept by the store's statements (threadClusters.ts): on FalkorDB. */
layer(relayTestLayer("clusters"))("relay_get_clusters", (it) => {
  it.effect("clusters are bounded by limit and facts_per_cluster, with whole sizes and the total", () =>
    Effect.gen(function*() {
      const root = yield* save("Sessions live in Redis")
      yield* save("Sessions expire after 30 days", { parent_fact_id: root.fact.id })
      yield* save("Tenants get their own schema")
      yield* save("Uploads go to a bucket")
      const all = yield* ok("relay_get_clusters", {})
      expect(all.total_clusters).toBe(all.clusters.length)
      const r = yield* runTool("relay_get_clusters", { limit: 1, facts_per_cluster: 1 })
      const o = outputOf(r)
      expect(o.clusters).toHaveLength(1)
      expect(o.clusters[0]!.facts).toHaveLength(1)
      expect(o.clusters[0]!.size).toBe(all.clusters[0]!.size)
      expect(o.total_clusters).toBe(all.total_clusters)
      expect(r.content[0]!.text).toContain(`(the oldest 1 shown)`)
      expect(r.content[0]!.text).toContain(`${all.total_clusters - 1} smaller cluster(s) not shown`)
    }))
})
