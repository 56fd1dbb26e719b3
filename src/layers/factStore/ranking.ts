import { Effect } from "effect"
import { chooseClusters, clusterFactBudget, type ClusterSizes } from "../../domain/clusters.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { Clusters } from "../../services/FactStore.js"
import { factMap, type FactRow, toFact } from "./projection.js"

/** PageRank over BUILDS_ON (new → old), so rank gathers on the facts later work rests on; ties: older first. */
export const importantQuery = `CALL algo.pageRank('Fact', 'BUILDS_ON') YIELD node, score ` +
  `WITH node, score ORDER BY score DESC, node.created_at ASC LIMIT $limit ` +
  `RETURN ${factMap("node")} AS fact, score`

export const important = (db: GraphDatabase["Type"], limit: number) =>
  db.read<{ fact: FactRow; score: number }>(importantQuery, { limit }).pipe(
    Effect.map((rows) => rows.map((r) => ({ fact: toFact(r.fact), score: r.score })))
  )

/**
 * Connected components over BUILDS_ON and SUPERSEDES, direction ignored. The first statement sizes
 * every component and lists its ids oldest first (cheap: no fact is mapped); the clusters that fit
 * the answer are chosen here (domain/clusters.ts), and only their facts are read in full.
 */
export const clusterSizesQuery = `CALL algo.WCC({nodeLabels: ['Fact'], relationshipTypes: ['BUILDS_ON', 'SUPERSEDES']}) ` +
  `YIELD node, componentId ` +
  `WITH componentId, node ORDER BY node.created_at ` +
  `WITH componentId, collect(node.id) AS ids, min(node.created_at) AS first ` +
  `RETURN size(ids) AS size, first, ids[0..$cap] AS ids`

export const factsByIdQuery = `UNWIND $ids AS id MATCH (f:Fact {id: id}) RETURN ${factMap("f")} AS fact`

export const clusters = Effect.fn("FactStore.clusters")(function*(
  db: GraphDatabase["Type"],
  options: { readonly limit?: number | undefined; readonly factsPerCluster?: number | undefined }
) {
    const cap = Math.min(options.factsPerCluster ?? clusterFactBudget, clusterFactBudget)
    const all = yield* db.read<ClusterSizes>(clusterSizesQuery, { cap })
    const chosen = chooseClusters(all, { limit: options.limit, perCluster: options.factsPerCluster, budget: clusterFactBudget })
    const ids = chosen.flatMap((c) => c.ids)
    const rows = ids.length === 0 ? [] : yield* db.read<{ fact: FactRow }>(factsByIdQuery, { ids })
    const byId = new Map(rows.map((r) => [r.fact.id, toFact(r.fact)]))
    const result: Clusters = {
      total: all.length,
      clusters: chosen.map((c, i) => ({
        id: i + 1,
        size: c.size,
        facts: c.ids.flatMap((id) => {
          const fact = byId.get(id)
          return fact === undefined ? [] : [fact]
        })
      }))
    }
    return result
  })
