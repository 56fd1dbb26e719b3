import { factFields } from "./projection.js"

/**
 * The facts of one page, by node id, each with its parent's fact id. The ids are bound to plain
 * variables first: `id(f) = r[0]` made FalkorDB 4.16 scan every node per row instead of seeking.
 */
export const pageFactsQuery = `UNWIND $rows AS r WITH r[0] AS node, r[1] AS parent ` +
  `MATCH (f) WHERE id(f) = node MATCH (p) WHERE id(p) = parent ` +
  `RETURN node, {${factFields("f")}, parent_id: p.id} AS fact`
