import { staleNow } from "./staleness.js"

/**
 * The map of a child `v` of a parent whose map is already bound as `parentMap` (see projection.ts):
 * its parent_id is the parent's id: for a merge listed under an extra parent, the parent it is
 * listed under, and no builds_on (the contract says so). Its callers map children inside a list
 * comprehension, where FalkorDB 4.16 runs a pattern comprehension (parentIdOf, alsoOnOf) against
 * every node of the graph. `superseded`, `retracted` and `stale`: how to tell whether `v`
 * is (conflicts pass `false` for the first two, as they list only children that stood at their
 * snapshot, and the stale test at the snapshot). Stale is the child's own stored stamp, never the
 * parent's status: a confirmation of the child lifts what its parent's decision made it.
 */
export const childMap = (
  v: string,
  parentMap: string,
  superseded = `indegree(${v}, 'SUPERSEDES') > 0`,
  retracted = `indegree(${v}, 'RETRACTS') > 0`,
  stale = staleNow(v)
): string =>
  `{id: ${v}.id, content: ${v}.content, written_by: ${v}.written_by, session_id: ${v}.session_id, ` +
  `created_at: ${v}.created_at, parent_id: ${parentMap}.id, superseded: ${superseded}, retracted: ${retracted}, ` +
  `stale: ${stale}}`
