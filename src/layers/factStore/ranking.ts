import { Effect } from "effect"
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
 * Connected components over BUILDS_ON and SUPERSEDES, direction ignored. Every component is sized,
 * but only the chosen ones (largest first, ties by the oldest fact) have their oldest facts mapped,
 * so the cost of the answer stays bounded however large the graph grows.
 */
export const clustersQuery = `CALL algo.WCC({nodeLabels: ['Fact'], relationshipTypes: ['BUILDS_ON', 'SUPERSEDES']}) ` +
  `YIELD node, componentId ` +
  `WITH componentId, node ORDER BY node.created_at ` +
  `WITH componentId, collect(node) AS members ` +
  `WITH count(componentId) AS total, collect({members: members, size: size(members)}) AS all ` +
  `UNWIND all AS c ` +
  `WITH total, c ORDER BY c.size DESC, c.members[0].created_at ASC LIMIT $limit ` +
  `WITH total, c.size AS size, c.members[0].created_at AS first, c.members[0..$perCluster] AS shown ` +
  `UNWIND shown AS n ` +
  `RETURN total, size, first, ${factMap("n")} AS fact`

interface ClusterRow {
  readonly total: number
  readonly size: number
  readonly first: number
  readonly fact: FactRow
}

export const clusters = (db: GraphDatabase["Type"], limit: number, perCluster: number) =>
  db.read<ClusterRow>(clustersQuery, { limit, perCluster }).pipe(
    Effect.map((rows): Clusters => {
      const groups = new Map<number, { size: number; first: number; facts: Array<FactRow> }>()
      for (const r of rows) {
        const g = groups.get(r.first)
        if (g === undefined) groups.set(r.first, { size: r.size, first: r.first, facts: [r.fact] })
        else g.facts.push(r.fact)
      }
      const ordered = [...groups.values()].sort((x, y) => y.size - x.size || x.first - y.first)
      return {
        total: rows[0]?.total ?? 0,
        clusters: ordered.map((g, i) => ({
          id: i + 1,
          size: g.size,
          facts: g.facts.sort((x, y) => x.created_at - y.created_at).map(toFact)
        }))
      }
    })
  )
