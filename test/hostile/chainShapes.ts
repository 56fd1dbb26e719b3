import { randomUUID } from "node:crypto"
import { batches, createBuildsOnCypher, createFactsCypher, type StoredFact, storedFact } from "../../bench/bulkLoad.js"
import { clockSetQuery } from "../../src/layers/database/clock.js"
import { markDependentsOfRows } from "../../src/layers/factStore/staleness.js"

/**
 * Hostile BUILDS_ON shapes written in a few batched statements (saving 3,000 facts one tool call at
 * a time would take most of a test's time): the same properties and edges relay_save_fact and
 * relay_resolve_conflict leave, with stamps that grow along every chain as Relay's do.
 */
export interface Shape {
  readonly facts: ReadonlyArray<StoredFact>
  /** [child, parent] */
  readonly links: ReadonlyArray<readonly [string, string]>
  /** [winner, loser] */
  readonly supersedes: ReadonlyArray<readonly [string, string]>
  readonly lastStamp: number
}

const make = (i: number, at: number, content: (i: number) => string): StoredFact =>
  storedFact(randomUUID(), content(i), "hostile", "hostile", at)

/** A chain of `depth` facts, root first, and one fact outside it superseding the fact at `supersededAt`. */
export const deepChain = (
  depth: number,
  supersededAt: number,
  content: (i: number) => string,
  start = Date.parse("2026-05-01T00:00:00Z")
) => {
  const chain = Array.from({ length: depth }, (_, i) => make(i, start + i, content))
  const winner = make(depth, start + depth, () => "the winner of a decision part way down the chain")
  const shape: Shape = {
    facts: [...chain, winner],
    links: chain.slice(1).map((f, i) => [f.id, chain[i]!.id] as const),
    supersedes: [[winner.id, chain[supersededAt]!.id]],
    lastStamp: start + depth + 1
  }
  return { chain, winner, shape }
}

/** One root with `width` children. */
export const wideRoot = (width: number, content: (i: number) => string, start = Date.parse("2026-06-01T00:00:00Z")) => {
  const root = make(-1, start, () => "the root every child builds on")
  const children = Array.from({ length: width }, (_, i) => make(i, start + 1 + i, content))
  const shape: Shape = {
    facts: [root, ...children],
    links: children.map((c) => [c.id, root.id] as const),
    supersedes: [],
    lastStamp: start + width + 1
  }
  return { root, children, shape }
}

/** The statements that write a shape, in order, each with its parameters (batches of 1,000). */
export const shapeStatements = (shape: Shape): Array<{ cypher: string; params: Record<string, unknown> }> => {
  return [
    ...batches(shape.facts, 1000).map((rows) => ({ cypher: createFactsCypher, params: { rows } })),
    ...batches(shape.links, 1000).map((edges) => ({ cypher: createBuildsOnCypher, params: { edges } })),
    ...batches(shape.supersedes, 1000).map((edges) => ({
      cypher: `UNWIND $edges AS e MATCH (w:Fact {id: e[0]}), (l:Fact {id: e[1]}) ` +
        `CREATE (w)-[:SUPERSEDES {reason: 'hostile', resolved_by: 'hostile', created_at: $at, call_id: 'hostile'}]->(l) ` +
        `WITH l AS x, $at AS at ${markDependentsOfRows}`,
      params: { edges, at: shape.lastStamp }
    })),
    {
      cypher: clockSetQuery(
        { last: "CASE WHEN clk.last IS NULL OR clk.last < $last THEN $last ELSE clk.last END" },
        true
      ),
      params: { last: shape.lastStamp }
    }
  ]
}
