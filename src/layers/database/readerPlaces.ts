import { Effect } from "effect"
import type { Graph } from "falkordb"
import { furthest } from "../factStore/briefing.js"
import { driverCall } from "./driverErrors.js"

const groupsQuery = "MATCH (c:BriefingCursor) WITH toLower(c.name) AS k, count(c) AS n WHERE n > 1 " +
  "RETURN count(k) AS groups"

/**
 * Briefing places whose names differ only in case (written before names compared without case,
 * policies/agentNames.ts) become one: the node made first is kept with its spelling, which becomes
 * the name's first spelling, at the earliest position of the group (a reader then sees again what
 * one of its spellings read, never misses what the other did not), and the others are deleted. One
 * statement, so two processes starting at once merge once.
 */
export const mergePlacesQuery = `MATCH (c:BriefingCursor) OPTIONAL MATCH (c)-[cr:READ_TO]->(c) ` +
  `WITH c, ${furthest("cr.as_of", "c.as_of")} AS at ` +
  `WITH toLower(c.name) AS k, collect(c) AS cs, collect(at) AS ats WHERE size(cs) > 1 ` +
  `WITH k, cs, reduce(m = head(cs), x IN cs | CASE WHEN id(x) < id(m) THEN x ELSE m END) AS keep, ` +
  `reduce(m = null, a IN ats | CASE WHEN a IS NOT NULL AND (m IS NULL OR a < m) THEN a ELSE m END) AS earliest ` +
  `MERGE (keep)-[kr:READ_TO]->(keep) SET kr.as_of = earliest, keep.as_of = null ` +
  `MERGE (a:Agent {key: k}) ON CREATE SET a.name = keep.name ` +
  `WITH keep, [x IN cs WHERE id(x) <> id(keep)] AS rest UNWIND rest AS r DETACH DELETE r ` +
  `RETURN count(r) AS merged`

/** Merged when found; a read-only replica keeps them (its primary's Relay merges, and that reaches it). */
export const mergeReaderPlaces = Effect.fn("relay/graph/mergeReaderPlaces")(function*(graph: Graph) {
  const groups = yield* driverCall(() => graph.roQuery<{ groups: number }>(groupsQuery)).pipe(
    Effect.map((reply) => reply.data?.[0]?.groups ?? 0),
    Effect.catchIf((e) => e.reason === "no_graph", () => Effect.succeed(0))
  )
  if (groups === 0) return
  yield* driverCall(() => graph.query(mergePlacesQuery)).pipe(
    Effect.zipRight(
      Effect.logWarning("merged briefing places whose reader names differ only in case").pipe(
        Effect.annotateLogs({ names: groups })
      )
    ),
    Effect.catchIf(
      (e) => e.reason === "refused" && /\bREADONLY\b/.test(e.detail),
      () => Effect.logWarning("briefing places differing only in case were left: the database is a read-only replica")
    )
  )
})
