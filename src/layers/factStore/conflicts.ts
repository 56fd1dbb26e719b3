import { Effect } from "effect"
import type { Conflict } from "../../domain/fact.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { factMap, type FactRow, liveChildMap, toFact } from "./projection.js"

/**
 * Open conflicts: sibling pairs whose normalised contents differ and neither of which is superseded;
 * `a` is the older. The walk starts at the parents a ForkMark points at (made by the save that made
 * the fork, see saveFact.ts), so it touches only the children of forked parents, never every fact and
 * never every pair: the unsuperseded children are collected per parent (indegree, cheap), and
 * only parents left with two or more live children are paired up.
 */
export const openConflictsQuery = `MATCH (:ForkMark)-[:MARKS]->(p:Fact) WITH p ` +
  `MATCH (p)<-[:BUILDS_ON]-(c) WHERE indegree(c, 'SUPERSEDES') = 0 ` +
  `WITH p, collect(c) AS live WHERE size(live) > 1 ` +
  `UNWIND live AS a UNWIND live AS b ` +
  `WITH p, a, b WHERE a.created_at < b.created_at AND a.norm <> b.norm ` +
  `WITH a, b, ${factMap("p")} AS parent ORDER BY b.created_at DESC, a.created_at DESC ` +
  `RETURN parent, ${liveChildMap("a", "parent")} AS a, ${liveChildMap("b", "parent")} AS b`

export const openConflicts = (db: GraphDatabase["Type"]) =>
  db.read<{ parent: FactRow; a: FactRow; b: FactRow }>(openConflictsQuery).pipe(
    Effect.map((rows): ReadonlyArray<Conflict> =>
      rows.map((r) => ({ parent: toFact(r.parent), a: toFact(r.a), b: toFact(r.b) }))
    )
  )
