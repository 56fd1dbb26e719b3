import { Effect } from "effect"
import { NoInput } from "../domain/inputs.js"
import { ClustersOutput } from "../domain/outputs.js"
import { FactStore } from "../services/FactStore.js"
import { defineTool, readOnly, untrustedNote } from "./Tool.js"

export const getClusters = defineTool({
  name: "relay_get_clusters",
  description: "Group the memory into topics: facts connected by building on or superseding each other form one " +
    "cluster (direction ignored), largest first, each with its facts oldest first; a fact on its own is a cluster " +
    "of one. An empty list means nothing has been saved. Next: relay_get_important_facts for what matters most. " +
    untrustedNote,
  annotations: readOnly("Get the clusters"),
  input: NoInput,
  output: ClustersOutput,
  handler: Effect.fn("relay_get_clusters")(function*() {
    const clusters = yield* (yield* FactStore).clusters
    return { clusters: clusters.map((c) => ({ id: c.id, size: c.facts.length, facts: c.facts })) }
  })
})
