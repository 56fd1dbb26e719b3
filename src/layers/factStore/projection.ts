import type { Fact } from "../../domain/fact.js"
import { toIso } from "../../domain/time.js"

/**
 * The Cypher map every query returns for a fact, with its status derived from edges at read time:
 * superseded = some incoming SUPERSEDES; stale = some BUILDS_ON ancestor is superseded.
 *
 * Cost matters here (it runs once per returned fact): in FalkorDB 4.16 every pattern in a
 * projection (`size([(v)<-[:SUPERSEDES]-() | 1])`, `head([(v)-[:BUILDS_ON]->(up) | up.id])`)
 * costs 10-20 µs, growing with the graph, while `indegree()` is about 1 µs. So the ancestors are
 * walked once, bound through a one-element list, and give both the parent (the first ancestor:
 * a fact has at most one BUILDS_ON, so the walk is a single chain, nearest first) and staleness.
 * (Not exists(): FalkorDB 4.16's exists() in a projection is always true.)
 */
export const factMap = (v: string): string =>
  `[relayUps IN [[(${v})-[:BUILDS_ON*1..]->(relayAnc) | relayAnc]] | ` +
  `{id: ${v}.id, content: ${v}.content, written_by: ${v}.written_by, session_id: ${v}.session_id, ` +
  `created_at: ${v}.created_at, parent_id: head(relayUps).id, ` +
  `superseded: indegree(${v}, 'SUPERSEDES') > 0, ` +
  `stale: any(relayUp IN relayUps WHERE indegree(relayUp, 'SUPERSEDES') > 0)}][0]`

/** The same map, or null when the variable is unbound (OPTIONAL MATCH). */
export const factMapOrNull = (v: string): string => `CASE WHEN ${v} IS NULL THEN NULL ELSE ${factMap(v)} END`

export interface FactRow {
  readonly id: string
  readonly content: string
  readonly written_by: string
  readonly session_id: string
  readonly created_at: number
  readonly parent_id: string | null
  readonly superseded: boolean
  readonly stale: boolean
}

export const toFact = (row: FactRow): Fact => ({
  id: row.id,
  content: row.content,
  written_by: row.written_by,
  session_id: row.session_id,
  created_at: toIso(row.created_at),
  parent_id: row.parent_id ?? null,
  status: row.superseded ? "superseded" : row.stale ? "stale" : "active"
})

/**
 * The commit-order stamp: the later of the Clock's now and just past the graph's last stamp.
 * FalkorDB runs one write statement at a time per graph, so stamps taken inside the statement
 * follow commit order and never repeat. Binds `clk` and `ts`; carries the listed variables.
 */
export const stampClause = (carry: ReadonlyArray<string>): string => {
  const keep = [...carry, "clk"].join(", ")
  return `MERGE (clk:RelayClock {id: 0}) ` +
    `WITH ${keep}, CASE WHEN clk.last IS NULL OR $now > clk.last THEN $now ELSE clk.last + 1 END AS ts`
}
