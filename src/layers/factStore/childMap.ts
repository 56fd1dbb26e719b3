/**
 * The map of a child `v` of a parent whose map is already bound as `parentMap` (see projection.ts):
 * its parent_id is the parent's id and it is stale exactly when the parent is superseded, retracted or
 * stale, so a list of children needs one ancestor walk, the parent's, not one per child. `superseded`
 * and `retracted`: how to tell whether `v` is (conflicts pass `false`: they list only children that
 * stood at their snapshot).
 */
export const childMap = (
  v: string,
  parentMap: string,
  superseded = `indegree(${v}, 'SUPERSEDES') > 0`,
  retracted = `indegree(${v}, 'RETRACTS') > 0`
): string =>
  `{id: ${v}.id, content: ${v}.content, written_by: ${v}.written_by, session_id: ${v}.session_id, ` +
  `created_at: ${v}.created_at, parent_id: ${parentMap}.id, superseded: ${superseded}, retracted: ${retracted}, ` +
  `stale: ${parentMap}.superseded OR ${parentMap}.retracted OR ${parentMap}.stale}`
