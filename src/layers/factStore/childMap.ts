/**
 * The map of a child `v` of a parent whose map is already bound as `parentMap` (see projection.ts):
 * its parent_id is the parent's id and it is stale exactly when the parent is superseded or stale, so
 * a list of children needs one ancestor walk, the parent's, not one per child. `superseded`: how to
 * tell whether `v` is (conflicts pass `false`: they list only children that stood at their snapshot).
 */
export const childMap = (v: string, parentMap: string, superseded = `indegree(${v}, 'SUPERSEDES') > 0`): string =>
  `{id: ${v}.id, content: ${v}.content, written_by: ${v}.written_by, session_id: ${v}.session_id, ` +
  `created_at: ${v}.created_at, parent_id: ${parentMap}.id, superseded: ${superseded}, ` +
  `stale: ${parentMap}.superseded OR ${parentMap}.stale}`
