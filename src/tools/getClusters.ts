import { Effect } from "effect"
import { ClustersInput } from "../domain/inputs.js"
import { ClustersOutput } from "../domain/outputs.js"
import { cursorNumbers } from "../domain/paging.js"
import { FactStore } from "../services/FactStore.js"
import { defineTool, readOnly, untrustedNote } from "./Tool.js"

export const getClusters = defineTool({
  name: "relay_get_clusters",
  description: "Group the memory into topics: facts connected by building on or superseding each other form one " +
    "cluster (direction ignored), largest first, each with its facts oldest first; a fact on its own is a cluster " +
    "of one. Returns the clusters and facts that fit one answer (next_cursor reads on), or fewer with `limit` and " +
    "`facts_per_cluster`; `size` counts the whole cluster and `total_clusters` all clusters. An empty list means " +
    "nothing has been saved. Next: relay_get_important_facts for what matters most. " +
    untrustedNote,
  annotations: readOnly("Get the clusters"),
  input: ClustersInput,
  output: ClustersOutput,
  handler: Effect.fn("relay_get_clusters")(function*(input) {
    const at = yield* cursorNumbers(input.cursor, 2)
    const found = yield* (yield* FactStore).clusters({
      limit: input.limit,
      factsPerCluster: input.facts_per_cluster,
      after: at === null ? null : [at[0]!, at[1]!]
    })
    return {
      clusters: found.clusters.map((c) => ({ id: c.id, size: c.size, facts: c.facts })),
      total_clusters: found.total,
      next_cursor: found.nextCursor
    }
  })
})
