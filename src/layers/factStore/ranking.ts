import { Effect } from "effect"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { Cluster } from "../../services/FactStore.js"
import { factMap, type FactRow, toFact } from "./projection.js"

/** PageRank over BUILDS_ON (new → old), so rank gathers on the facts later work rests on; ties: older first. */
const importantQuery = `CALL algo.pageRank('Fact', 'BUILDS_ON') YIELD node, score ` +
  `WITH node, score ORDER BY score DESC, node.created_at ASC LIMIT $limit ` +
  `RETURN ${factMap("node")} AS fact, score`

export const important = (db: GraphDatabase["Type"], limit: number) =>
  db.read<{ fact: FactRow; score: number }>(importantQuery, { limit }).pipe(
    Effect.map((rows) => rows.map((r) => ({ fact: toFact(r.fact), score: r.score })))
  )

/**
 * Connected components over BUILDS_ON and SUPERSEDES, direction ignored; facts oldest first.
 *
 * This returns every fact, so the per-fact projection (factMap walks each fact's ancestors) would
 * make it O(facts x depth) inside FalkorDB: 0.35 s at 10k facts and past the query timeout at
 * 100k. Every fact's parent is in the result, so staleness (some ancestor superseded) is derived
 * here in one pass from the parent links and the superseded flags, both read from edges now.
 */
const clustersQuery = `CALL algo.WCC({nodeLabels: ['Fact'], relationshipTypes: ['BUILDS_ON', 'SUPERSEDES']}) ` +
  `YIELD node, componentId ` +
  `OPTIONAL MATCH (node)-[:BUILDS_ON]->(up:Fact) ` +
  `WITH componentId, node, up ORDER BY node.created_at ` +
  `RETURN componentId AS component, node.id AS id, node.content AS content, node.written_by AS written_by, ` +
  `node.session_id AS session_id, node.created_at AS created_at, up.id AS parent_id, ` +
  `indegree(node, 'SUPERSEDES') > 0 AS superseded`

interface ClusterRow extends Omit<FactRow, "stale"> {
  readonly component: number
}

/** stale(x) = its parent is superseded or stale; iterative, so a deep chain cannot overflow the stack. */
const withStaleness = (rows: ReadonlyArray<ClusterRow>): Map<string, FactRow> => {
  const byId = new Map(rows.map((r) => [r.id, r]))
  const stale = new Map<string, boolean>()
  for (const row of rows) {
    const path: Array<string> = []
    let current: ClusterRow | undefined = row
    let answer = false
    while (current !== undefined) {
      const known = stale.get(current.id)
      if (known !== undefined) {
        answer = known
        break
      }
      path.push(current.id)
      const parent: ClusterRow | undefined = current.parent_id === null ? undefined : byId.get(current.parent_id)
      if (parent === undefined) break
      if (parent.superseded) {
        answer = true
        break
      }
      current = parent
    }
    // Everything on the path has the same answer: each one's nearest superseded ancestor (if any) is the same.
    for (const id of path) stale.set(id, answer)
  }
  return new Map(rows.map((r) => [r.id, { ...r, stale: stale.get(r.id) ?? false }]))
}

export const clusters = (db: GraphDatabase["Type"]) =>
  db.read<ClusterRow>(clustersQuery).pipe(
    Effect.map((rows): ReadonlyArray<Cluster> => {
      const facts = withStaleness(rows)
      const groups = new Map<number, Array<FactRow>>()
      for (const r of rows) {
        const group = groups.get(r.component) ?? []
        group.push(facts.get(r.id) as FactRow)
        groups.set(r.component, group)
      }
      // Largest first, then the one whose oldest fact is older; members stay oldest first (stable sort).
      return [...groups.values()]
        .sort((a, b) => b.length - a.length || (a[0]?.created_at ?? 0) - (b[0]?.created_at ?? 0))
        .map((members, i) => ({ id: i + 1, facts: members.map(toFact) }))
    })
  )
