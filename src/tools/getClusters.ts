import { Effect } from "effect"
import { ClustersCursor } from "../domain/clusters.js"
import { ClustersInput } from "../domain/inputs.js"
import { ClustersOutput } from "../domain/outputs.js"
import { toIso } from "../domain/time.js"
import { FactStore } from "../services/FactStore.js"
import { renderClusters } from "./render/reads.js"
import { defineTool, readOnly } from "./Tool.js"

export const getClusters = defineTool({
  name: "relay_get_clusters",
  description: "Linked threads, largest first",
  annotations: readOnly("Get the clusters"),
  wholeGraph: true,
  input: ClustersInput,
  output: ClustersOutput,
  render: renderClusters,
  handler: Effect.fn("relay/tools/relay_get_clusters")(function*(input) {
    const at = yield* ClustersCursor.decode(input.cursor)
    const found = yield* (yield* FactStore).clusters({
      limit: input.limit,
      factsPerCluster: input.facts_per_cluster,
      after: at,
      skipped: at?.skipped
    })
    return {
      clusters: found.clusters.map((c) => ({
        id: c.id,
        size: c.size,
        label: c.label,
        thread: c.thread,
        last_activity: toIso(c.lastActivity),
        open_conflicts: c.openConflicts,
        facts: c.facts
      })),
      total_clusters: found.total,
      next_cursor: found.nextCursor
    }
  })
})
