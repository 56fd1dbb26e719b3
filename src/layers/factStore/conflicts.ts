import { Effect } from "effect"
import type { Conflict } from "../../domain/fact.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { factMap, type FactRow, toFact } from "./projection.js"

/**
 * Open conflicts: sibling pairs (found by walking the children of parents that have more than one,
 * never all pairs of facts) whose normalised contents differ and neither of which is superseded;
 * `a` is the older. indegree() rather than `NOT (a)<-[:SUPERSEDES]-()`: in FalkorDB 4.16 that
 * pattern costs a traversal per candidate that grows with the number of SUPERSEDES edges
 * (1.9 s at 100k facts against 0.2 s this way).
 */
const openConflictsQuery = `MATCH (p:Fact) WHERE indegree(p, 'BUILDS_ON') > 1 ` +
  `MATCH (a:Fact)-[:BUILDS_ON]->(p)<-[:BUILDS_ON]-(b:Fact) ` +
  `WHERE a.created_at < b.created_at AND a.norm <> b.norm ` +
  `AND indegree(a, 'SUPERSEDES') = 0 AND indegree(b, 'SUPERSEDES') = 0 ` +
  `WITH p, a, b ORDER BY b.created_at DESC, a.created_at DESC ` +
  `RETURN ${factMap("p")} AS parent, ${factMap("a")} AS a, ${factMap("b")} AS b`

export const openConflicts = (db: GraphDatabase["Type"]) =>
  db.read<{ parent: FactRow; a: FactRow; b: FactRow }>(openConflictsQuery).pipe(
    Effect.map((rows): ReadonlyArray<Conflict> =>
      rows.map((r) => ({ parent: toFact(r.parent), a: toFact(r.a), b: toFact(r.b) }))
    )
  )
