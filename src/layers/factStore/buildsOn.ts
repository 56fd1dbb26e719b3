import { throughMerges } from "./walkDown.js"

type BuildsOn = (a: string, b: string, as: string, carry: ReadonlyArray<string>) => string

/**
 * Whether the fact bound as `a` builds on the fact bound as `b` (at any depth), bound as `as`, with
 * `carry` (which must hold a and b) carried on. A MATCH walking up from a, filtered on b: FalkorDB
 * 4.16 builds every path of a pattern comprehension whole, so `size([(a)-[:BUILDS_ON*1..]->(b) | 1])`
 * cost 1.5 s from 30,000 deep; this walk costs 22 ms there (one parent a fact: one path up).
 * One row in, one row out (an aggregation keyed on what is carried).
 */
export const buildsOnClause: BuildsOn = (a, b, as, carry) =>
  // Only b and the merges met on the first parents' chain are kept from the walk (collecting the
  // whole chain to test b in it cost 4.4 ms from 5,000 deep against 1.5 for the filtered walk; 2.9 so).
  `OPTIONAL MATCH (${a})-[:BUILDS_ON*1..]->(${as}_up) WHERE ${as}_up = ${b} OR outdegree(${as}_up, 'ALSO_ON') > 0 ` +
  `WITH ${carry.join(", ")}, count(CASE WHEN ${as}_up = ${b} THEN 1 END) > 0 AS ${as}_direct, ` +
  `collect(CASE WHEN ${as}_up <> ${b} THEN ${as}_up END) + ` +
  `CASE WHEN outdegree(${a}, 'ALSO_ON') > 0 THEN [${a}] ELSE [] END AS ${as}_hubs ` +
  // Then through the extra parents of those merges, round after round (walkDown.ts).
  throughMerges(`${as}_hubs`, `${as}_more`, [...carry, `${as}_direct`], "up") +
  `WITH ${carry.join(", ")}, ${as}_direct OR ${b} IN ${as}_more AS ${as} `

/**
 * `buildsOnClause` for a graph without merges (mergeGate.ts): the first parents' chain is all a fact
 * builds on, and a walk filtered on the other fact is the cheapest test.
 */
export const leanBuildsOnClause: BuildsOn = (a, b, as, carry) =>
  `OPTIONAL MATCH (${a})-[:BUILDS_ON*1..]->(${as}_up) WHERE ${as}_up = ${b} ` +
  `WITH ${carry.join(", ")}, count(${as}_up) > 0 AS ${as} `

const relatedBy = (buildsOn: BuildsOn) => (carry: ReadonlyArray<string>) =>
  buildsOn("w", "l", "wOnL", carry) +
  buildsOn("l", "w", "lOnW", [...carry, "wOnL"]) +
  `WITH ${carry.join(", ")}, wOnL OR lOnW AS related `

/** Whether either of the facts bound as w and l builds on the other (bound as `related`), with `carry` carried on. */
export const relatedClause = relatedBy(buildsOnClause)

/** `relatedClause` for a graph without merges. */
export const leanRelatedClause = relatedBy(leanBuildsOnClause)
