import { markFork } from "./forkMark.js"
import { newPair, plain } from "./forkRule.js"

/**
 * What a save reads of the new fact `f`'s siblings under `p` (`every`, all of them saved before it,
 * oldest first), carrying `carry`: the FORKS edges to those it forms a stored pair with (made only
 * by the statement that made `f`), then `differing` (the siblings it forks with), `same` (the oldest
 * with its text) and `passed` (a choice's: the differing siblings it does not fork with), and the
 * parent's ForkMark (the rule: domain/forkMarks.ts). A retracted sibling was withdrawn as wrong: neither a fact this one repeats nor
 * one it forks with nor one compared; the fact a revision supersedes (`o`) is decided, not open. Both
 * still get their edge: the edges are the rule's pairs, whatever became of the facts.
 */
export const siblingPicture = (carry: string, revision: boolean): string =>
  `WITH ${carry}, every, [x IN every WHERE ${newPair("x")}] AS linked ` +
  `FOREACH (x IN CASE WHEN made THEN linked ELSE [] END | MERGE (f)-[:FORKS]->(x)) ` +
  `WITH ${carry}, linked, [x IN every WHERE indegree(x, 'RETRACTS') = 0${revision ? " AND x <> o" : ""}] AS siblings ` +
  `WITH ${carry}, [x IN siblings WHERE x.norm <> $norm AND ((coalesce($kind, '') = '' AND ${
    plain("x")
  }) OR x IN linked)] AS differing, ` +
  `[x IN siblings WHERE x.norm = $norm][0..1] AS same, siblings ` +
  `WITH ${carry}, differing, same, CASE WHEN $kind = 'choice' THEN [x IN siblings WHERE x.norm <> $norm AND ` +
  `NOT x IN differing] ELSE [] END AS passed ` +
  markFork("differing", "made")
