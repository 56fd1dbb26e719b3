import { Effect } from "effect"
import type { Conflict } from "../../domain/fact.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { factMap, type FactRow, toFact } from "./projection.js"

/**
 * Open conflicts: sibling pairs (found by walking each parent's children, never all pairs of facts)
 * whose normalised contents differ and neither of which is superseded; `a` is the older.
 */
const openConflictsQuery = `MATCH (a:Fact)-[:BUILDS_ON]->(p:Fact)<-[:BUILDS_ON]-(b:Fact) ` +
  `WHERE a.created_at < b.created_at AND a.norm <> b.norm ` +
  `AND NOT (a)<-[:SUPERSEDES]-() AND NOT (b)<-[:SUPERSEDES]-() ` +
  `WITH p, a, b ORDER BY b.created_at DESC, a.created_at DESC ` +
  `RETURN ${factMap("p")} AS parent, ${factMap("a")} AS a, ${factMap("b")} AS b`

export const openConflicts = (db: GraphDatabase["Type"]) =>
  db.read<{ parent: FactRow; a: FactRow; b: FactRow }>(openConflictsQuery).pipe(
    Effect.map((rows): ReadonlyArray<Conflict> =>
      rows.map((r) => ({ parent: toFact(r.parent), a: toFact(r.a), b: toFact(r.b) }))
    )
  )
