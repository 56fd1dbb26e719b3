/**
 * The mirror of BUILDS_ON: `(parent)-[:SUPPORTS]->(child)`, written in the same statement as each
 * BUILDS_ON (save, bulk save, import) and never alone. Why: FalkorDB 4.16's variable-length
 * `(x)<-[:BUILDS_ON*1..]-(d)` makes a row per path, and once a fact may build on several facts the
 * paths down outnumber the facts (22 levels of two facts each on both above: 8.4 million paths,
 * 1.6 s); `algo.BFS` visits each node once (0.35 ms there) but follows outgoing edges only, and
 * BUILDS_ON points up. Design: docs/design/several-parents.md. A graph from before schema 5 gets
 * its mirrors from the migration (schemaVersion.ts); `check-db --verify` reports any edge without
 * its mirror.
 */

/** Mirrors for the BUILDS_ON edges of a range of node ids, where missing (idempotent, bounded by the range). */
export const mirrorRangeQuery = `MATCH (f:Fact)-[:BUILDS_ON]->(p) WHERE id(f) >= $lo AND id(f) < $hi ` +
  `AND NOT (p)-[:SUPPORTS]->(f) CREATE (p)-[:SUPPORTS]->(f) RETURN count(*) AS made`

/**
 * In a range of node ids, each fact whose BUILDS_ON parents and SUPPORTS sources differ, with how
 * many edges differ. Lists of node ids compared, not pattern predicates: FalkorDB 4.16 refuses a
 * pattern inside a comprehension's WHERE ("Type mismatch: expected Null but was Pointer").
 */
export const mirrorDriftQuery = `MATCH (f:Fact) WHERE id(f) >= $lo AND id(f) < $hi ` +
  `WITH f, [(f)-[:BUILDS_ON]->(p) | id(p)] AS ups, [(f)<-[:SUPPORTS]-(q) | id(q)] AS downs ` +
  `WITH f, size([x IN ups WHERE NOT x IN downs]) + size([x IN downs WHERE NOT x IN ups]) AS n ` +
  `WHERE n > 0 RETURN n, f.id AS id`

/**
 * A breadth-first walk down from the fact bound as `x`, at most `levels` deep, as `edges`: one
 * `row` (over the edge's parent `p` and child `d`) per dependent, each once, at its shortest
 * distance, kept where `where` holds. In a CALL {} ending in collect, so the row goes on when x has
 * no dependents (algo.BFS then yields no row at all). Carries x and edges on.
 */
export const walkDown = (x: string, levels: number, p: string, d: string, row: string, where?: string): string =>
  `CALL { WITH ${x} CALL algo.BFS(${x}, ${levels}, 'SUPPORTS') YIELD edges UNWIND edges AS ${x}_e ` +
  `WITH startNode(${x}_e) AS ${p}, endNode(${x}_e) AS ${d}${where === undefined ? "" : ` WHERE ${where}`} ` +
  `RETURN collect(${row}) AS edges } `
