import { Effect } from "effect"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { Cluster } from "../../services/FactStore.js"
import { staleSet } from "../../domain/rules.js"
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
 * Connected components over BUILDS_ON and SUPERSEDES, direction ignored. Every fact comes back, so
 * the rows are flat and cheap (the parent by OPTIONAL MATCH, superseded by indegree) and staleness is
 * worked out here from the whole forest at once (rules.staleSet) instead of one ancestor walk per
 * fact in Cypher: at 100,000 facts that is the difference between ~0.2 s and several seconds.
 */
export const clustersQuery = `CALL algo.WCC({nodeLabels: ['Fact'], relationshipTypes: ['BUILDS_ON', 'SUPERSEDES']}) ` +
  `YIELD node, componentId ` +
  `OPTIONAL MATCH (node)-[:BUILDS_ON]->(up) ` +
  `RETURN componentId AS c, node.id AS id, node.content AS content, node.written_by AS written_by, ` +
  `node.session_id AS session_id, node.created_at AS created_at, up.id AS parent_id, ` +
  `indegree(node, 'SUPERSEDES') > 0 AS superseded`

type ClusterRow = Omit<FactRow, "stale"> & { readonly c: number }

/** Largest first, ties by the oldest fact; each cluster's facts oldest first (stamps follow commit order). */
export const clusters = (db: GraphDatabase["Type"]) =>
  db.read<ClusterRow>(clustersQuery).pipe(
    Effect.map((rows): ReadonlyArray<Cluster> => {
      const stale = staleSet(
        new Map(rows.map((r) => [r.id, r.parent_id ?? null])),
        new Set(rows.filter((r) => r.superseded).map((r) => r.id))
      )
      const groups = new Map<number, Array<ClusterRow>>()
      for (const r of rows) {
        const g = groups.get(r.c)
        if (g === undefined) groups.set(r.c, [r])
        else g.push(r)
      }
      return [...groups.values()]
        .map((g) => g.sort((x, y) => x.created_at - y.created_at))
        .sort((x, y) => y.length - x.length || x[0]!.created_at - y[0]!.created_at)
        .map((g, i) => ({ id: i + 1, facts: g.map((r) => toFact({ ...r, stale: stale.has(r.id) })) }))
    })
  )
