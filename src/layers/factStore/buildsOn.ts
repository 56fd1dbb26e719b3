import { hubsOf, throughMerges } from "./walkDown.js"

/**
 * Whether the fact bound as `a` builds on the fact bound as `b` (at any depth), bound as `as`, with
 * `carry` (which must hold a and b) carried on. A MATCH walking up from a, filtered on b: FalkorDB
 * 4.16 builds every path of a pattern comprehension whole, so `size([(a)-[:BUILDS_ON*1..]->(b) | 1])`
 * cost 1.5 s from 30,000 deep; this walk costs 22 ms there (one parent a fact: one path up).
 * One row in, one row out (an aggregation keyed on what is carried).
 */
export const buildsOnClause = (a: string, b: string, as: string, carry: ReadonlyArray<string>): string =>
  `OPTIONAL MATCH (${a})-[:BUILDS_ON*1..]->(${as}_up) ` +
  // The first parents' chain, and through the extra parents met on it, round after round (walkDown.ts).
  `WITH ${carry.join(", ")}, collect(${as}_up) AS ${as}_chain, ${hubsOf(`${as}_up`, "up")} + ` +
  `CASE WHEN outdegree(${a}, 'ALSO_ON') > 0 THEN [${a}] ELSE [] END AS ${as}_hubs ` +
  throughMerges(`${as}_hubs`, `${as}_more`, [...carry, `${as}_chain`], "up") +
  `WITH ${carry.join(", ")}, ${b} IN ${as}_chain OR ${b} IN ${as}_more AS ${as} `

/** Whether either of the facts bound as w and l builds on the other (bound as `related`), with `carry` carried on. */
export const relatedClause = (carry: ReadonlyArray<string>) =>
  buildsOnClause("w", "l", "wOnL", carry) +
  buildsOnClause("l", "w", "lOnW", [...carry, "wOnL"]) +
  `WITH ${carry.join(", ")}, wOnL OR lOnW AS related `
