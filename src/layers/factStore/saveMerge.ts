import { buildsOnClause } from "./buildsOn.js"
import { childMap } from "./childMap.js"
import { createFact, recordRevision, revisionStamp } from "./createFact.js"
import { settleFork } from "./forkWindow.js"
import { factMap } from "./projection.js"
import { siblingPicture } from "./siblingPicture.js"
import { inheritedStale, markDependents } from "./staleness.js"
import { termCountsClause } from "./termCounts.js"
import { mergeRounds } from "./walkDown.js"

/**
 * A save on several parents (`builds_on`, domain/model/graph.ts) in one statement: `$parents` in the
 * order named, each once, the first the fact's `BUILDS_ON` parent, the others `ALSO_ON` (so BUILDS_ON
 * stays a forest, where a variable-length walk visits each fact once; docs/design/several-parents.md).
 * Every parent must exist, and a revision's parents must neither be nor build on the fact it
 * supersedes: no row otherwise, and nothing written. The fact is stale from the earliest stamp any
 * parent passes on, it is its own `merge_of` (confirm.ts refreshes no merge through a confirmation
 * above it), and it forks and repeats under each parent: one report a parent.
 */
const matchParents = (revision: boolean) =>
  `UNWIND $parents AS pid MATCH (u:Fact {id: pid}) ` +
  `WITH collect(u) AS ups WHERE size(ups) = size($parents) ` +
  // How many merges lie on its deepest line, itself included: walks down unroll that many rounds.
  `WITH ups, ${mergeDepth} AS depth WHERE depth <= ${mergeRounds} ` +
  (revision ?
    `MATCH (o:Fact {id: $supersedes}) WITH ups, depth, o WHERE NOT o IN ups ` +
    `UNWIND ups AS u ${buildsOnClause("u", "o", "under", ["ups", "depth", "o", "u"])}` +
    `WITH ups, depth, o, sum(CASE WHEN under THEN 1 ELSE 0 END) = 0 AS free WHERE free ` :
    "") +
  `UNWIND ups AS u WITH ups, depth${revision ? ", o" : ""}, u, ${inheritedStale("u")} AS ui ` +
  `WITH ups, depth${revision ? ", o" : ""}, min(ui) AS inherited ` +
  `WITH ups, depth${revision ? ", o" : ""}, inherited, head(ups) AS p `

/** The stored depth of a fact on `ups` (domain/model/save.ts mergeDepth): one more than its deepest parent's. */
const mergeDepth = `reduce(dm = 0, q IN ups | ` +
  `CASE WHEN coalesce(q.merge_depth, 0) > dm THEN coalesce(q.merge_depth, 0) ELSE dm END) + 1`

const saveMerged = (revision: boolean) => {
  const carry = revision ? ["ups", "depth", "o", "inherited", "p"] : ["ups", "depth", "inherited", "p"]
  const keep = revision ? "ups, o" : "ups"
  return `${matchParents(revision)}${
    createFact(carry, { merge_of: "$id", merge_depth: "depth" })
  } ${termCountsClause}` +
    `MERGE (f)-[:BUILDS_ON]->(p) ` +
    `WITH f, ${keep}, f.created_at = ts AS made ` +
    `UNWIND tail(ups) AS q MERGE (f)-[:ALSO_ON]->(q) ` +
    `WITH f, ${keep}, made, count(q) AS linked ` +
    (revision ? `${recordRevision}${markDependents("o", revisionStamp, ["f", "ups", "o", "made"])}` : "") +
    // Under each parent, as a one-parent save does under its one (saveFact.ts).
    `WITH f, ${keep}, made UNWIND ups AS p ` +
    `OPTIONAL MATCH (p)<-[:BUILDS_ON|ALSO_ON]-(s:Fact) WHERE s.created_at < f.created_at ` +
    `WITH f, ${keep}, made, p, s ORDER BY s.created_at ` +
    `WITH f, ${keep}, made, p, collect(s) AS every ` +
    siblingPicture(`f, ${keep}, made, p`, revision) +
    // Mapped as a one-parent save maps them (childMap: properties and degrees only): FalkorDB 4.16
    // runs a pattern comprehension inside a list comprehension against every node of the graph.
    `WITH f, ${keep}, made, p, differing, same, passed, ${factMap("p")} AS parent ` +
    `WITH f, ${keep}, made, collect({parent: p.id, total: size(differing), ` +
    `siblings: [x IN differing[-$shown..] | ${childMap("x", "parent")}], comparedTotal: size(passed), ` +
    `compared: [x IN passed[-$comparedShown..] | ${childMap("x", "parent")}], ` +
    `duplicate: [y IN same | ${childMap("y", "parent")}]}) AS reports ` +
    (revision ?
      // The fact a revision supersedes leaves each of its parents' pairs.
      `OPTIONAL MATCH (o)-[:BUILDS_ON|ALSO_ON]->(q) ` +
      settleFork("q", "f.created_at", "made", ["f", "o", "made", "reports"]) +
      `WITH f, o, reports, count(*) AS settled ` :
      "") +
    `RETURN ${factMap("f")} AS fact, reports, ${revision ? factMap("o") : "null"} AS revised`
}

export const mergeQueries = { merged: saveMerged(false), revisedMerged: saveMerged(true) }
