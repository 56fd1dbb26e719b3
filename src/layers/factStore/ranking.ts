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

/** Connected components over BUILDS_ON and SUPERSEDES, direction ignored; facts oldest first. */
const clustersQuery = `CALL algo.WCC({nodeLabels: ['Fact'], relationshipTypes: ['BUILDS_ON', 'SUPERSEDES']}) ` +
  `YIELD node, componentId ` +
  `WITH componentId, node ORDER BY node.created_at ` +
  `WITH componentId, collect(${factMap("node")}) AS facts ` +
  `RETURN facts ORDER BY size(facts) DESC, facts[0].created_at ASC`

export const clusters = (db: GraphDatabase["Type"]) =>
  db.read<{ facts: ReadonlyArray<FactRow> }>(clustersQuery).pipe(
    Effect.map((rows): ReadonlyArray<Cluster> =>
      rows.map((r, i) => ({ id: i + 1, facts: r.facts.map(toFact) }))
    )
  )
