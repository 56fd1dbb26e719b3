import { clockVars, clockWrite } from "../database/clock.js"
import { factNode, type FactValues, fromParams } from "./factNode.js"
import { stampClause } from "./projection.js"
import { onCreateSet, resolutionProps } from "./recordProps.js"
import { inheritedStale, neverStale } from "./staleness.js"
import { termClockValues } from "./termCounts.js"
import { clusterOnSave, rootOf } from "./threadClusters.js"

/**
 * A fact already stored under this id (a retry with the same request_id) must say the same, in the same
 * session, under the same parent, of the same kind, revising the same fact for the same reason:
 * otherwise no row goes on and nothing is written, and `save` answers invalid_input on request_id.
 * Inside the statement, so two racing calls cannot both pass. (The parent is projected first:
 * FalkorDB 4.16 fails the cached plan of a pattern comprehension inside this WHERE with "Unable to
 * locate a value with alias".) A revision's SUPERSEDES carries the fact's id as its call_id.
 */
export const sameOrNew = (carry: ReadonlyArray<string>) =>
  `OPTIONAL MATCH (earlier:Fact {id: $id}) ` +
  `WITH ${[...carry, "earlier"].join(", ")}, ` +
  `head([(earlier)-[:BUILDS_ON]->(earlier_up) | earlier_up.id]) AS earlier_parent, ` +
  // Read only on a retry: a first save pays no traverse for it.
  `CASE WHEN earlier IS NULL THEN [] ELSE [(earlier)-[:ALSO_ON]->(earlier_also) | earlier_also.id] END AS earlier_also, ` +
  `head([(earlier)-[earlier_r:SUPERSEDES]->(earlier_o) WHERE earlier_r.call_id = $id | ` +
  `[earlier_o.id, earlier_r.reason]]) AS earlier_rev ` +
  `WHERE earlier IS NULL OR (earlier.content = $content AND earlier.session_id = $sessionId AND ` +
  `coalesce(earlier.kind, '') = coalesce($kind, '') AND coalesce(earlier.contradicts, []) = coalesce($contradicts, []) AND ` +
  `coalesce(earlier_parent, '') = coalesce($parentId, '') AND list.sort(earlier_also) = $alsoSorted AND ` +
  `coalesce(earlier_rev[0], '') = coalesce($supersedes, '') AND coalesce(earlier_rev[1], '') = coalesce($reason, ''))`

/**
 * One statement creates the fact, links its parent and reads the siblings that landed before it,
 * so concurrent writers under one parent each see an exact fork picture. A retried call finds the
 * fact that already landed (`earlier`) and answers it instead of writing it twice.
 *
 * When the new fact forks (a sibling disagrees with it), the parent is marked by a separate
 * `(:ForkMark)-[:MARKS]->(parent)` (made once, by MERGE), so no Fact is ever changed. Its edge keeps
 * the parent's window (forkWindow.ts: since when it is open, when it last closed), which the writes
 * that open or end pairs keep in their statements, so relay_detect_conflicts starts from the parents
 * open at its snapshot instead of every fork; which pairs are open it still decides at read time.
 */
export const createFact = (
  carry: ReadonlyArray<string>,
  merged?: Pick<FactValues, "merge_of" | "merge_depth">
) => {
  // A child is stale from when its parent is (staleness.ts), read here, in the statement that links
  // them; a merge's `inherited` (over all its parents) is bound already, and is in `carry`.
  const child = carry.includes("p")
  const kept = child && merged === undefined ? [...carry, "inherited"] : carry
  return `${child && merged === undefined ? `WITH ${carry.join(", ")}, ${inheritedStale("p")} AS inherited ` : ""}` +
    `${sameOrNew(kept)} ${stampClause([...kept, "earlier"])} ` +
    // A new fact must fit the graph's capacity (capacity.ts); a retry of one that landed always answers.
    `WHERE earlier IS NOT NULL OR ` +
    `(coalesce(clk.facts, 0) < $maxFacts AND coalesce(clk.bytes, 0) + $bytes <= $maxBytes) ` +
    // Every property in the CREATE: FalkorDB 4.16 makes a SET on a node (even one just created, as
    // MERGE ... ON CREATE SET does) cost in proportion to the graph's nodes, 38 ms of a save at 1M.
    `FOREACH (_ IN CASE WHEN earlier IS NULL THEN [1] ELSE [] END | ` +
    `CREATE ${
      factNode("", {
        ...fromParams,
        created_at: "ts",
        stale_at: child ? "inherited" : String(neverStale),
        root: rootOf(child),
        ...(merged ?? (child ?
          { merge_of: "p.merge_of", merge_depth: "p.merge_depth" } :
          { merge_of: null, merge_depth: null })),
        // A procedure's are set by a statement of its own, with its steps (procedures/steps.ts).
        version: null,
        lineage: null,
        runs_ok: null,
        runs_failed: null,
        // null (no setting, or no answer from the endpoint) leaves it out: the backfill adds it (vectors.ts).
        embedding: "vecf32($embedding)"
      })
    }) ` +
    clockWrite({
      last: "ts",
      facts: "coalesce(clk.facts, 0) + 1",
      bytes: "coalesce(clk.bytes, 0) + $bytes",
      ...termClockValues
    }, "earlier IS NULL") +
    `WITH ${[...kept, clockVars, "ts"].join(", ")} MATCH (f:Fact {id: $id}) ` +
    clusterOnSave(child, [...kept, clockVars, "ts", "f"])
}

/** The stamp a revision marks the dependents with: none on a retry (its first try marked them; again would undo a confirmation since). */
export const revisionStamp = "CASE WHEN made THEN f.created_at END"

export const recordRevision = `MERGE (f)-[rv:SUPERSEDES]->(o) ` +
  `${
    onCreateSet("rv", resolutionProps({ reason: "$reason", by: "$writtenBy", at: "f.created_at" }, { call_id: "$id" }))
  } `
