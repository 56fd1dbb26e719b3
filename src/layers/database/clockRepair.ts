import { Effect } from "effect"
import type { Graph } from "falkordb"
import { driverCall } from "./driverErrors.js"

const fields = ["last", "facts", "bytes", "docs", "terms"] as const

/** The largest of `prop` over the nodes and edges in `list` (null when none has it). */
const largest = (list: string, prop: string) =>
  `reduce(m = null, x IN ${list} | CASE WHEN x.${prop} IS NOT NULL AND (m IS NULL OR x.${prop} > m) ` +
  `THEN x.${prop} ELSE m END)`

// By type(), as clock.ts reads them: a plan cached before the type existed finds no typed edge.
const loops = "[(keep)-[kk]->(keep) WHERE type(kk) = 'CLOCK' | kk]"

const setAll = (v: string) => fields.map((f) => `${v}.${f} = cv.${f}`).join(", ")

/**
 * Several RelayClock nodes as one, the lowest id kept: each value the largest any of them or their
 * CLOCK self-loops holds (every clock value only grows; counts kept apart since the split are
 * undercounted, never doubled), its loops set to those values (one made if it had none), the others
 * deleted with their loops. One statement, so two processes starting at once merge once.
 */
export const mergeClocksQuery = `MATCH (c:RelayClock) OPTIONAL MATCH (c)-[k]->(c) WHERE type(k) = 'CLOCK' ` +
  `WITH collect(DISTINCT c) AS cs, collect(k) AS ks WHERE size(cs) > 1 ` +
  `WITH cs, reduce(m = head(cs), x IN cs | CASE WHEN id(x) < id(m) THEN x ELSE m END) AS keep, ` +
  `{schema: ${largest("cs", "schema")}, ${
    fields.map((f) =>
      `${f}: CASE WHEN ${largest("ks", f)} > ${largest("cs", f)} OR ${largest("cs", f)} IS NULL ` +
      `THEN ${largest("ks", f)} ELSE ${largest("cs", f)} END`
    ).join(", ")
  }} AS cv ` +
  `SET keep.schema = cv.schema, ${setAll("keep")} ` +
  `WITH cs, keep, cv, ${loops} AS had ` +
  `FOREACH (x IN CASE WHEN size(had) = 0 THEN [keep] ELSE [] END | CREATE (x)-[:CLOCK]->(x)) ` +
  `WITH cs, keep, cv, ${loops} AS own ` +
  `FOREACH (x IN own | SET ${setAll("x")}) ` +
  `WITH keep, [x IN cs WHERE id(x) <> id(keep)] AS rest UNWIND rest AS r DETACH DELETE r ` +
  `RETURN count(r) AS merged`

/**
 * A graph FalkorDB 4.16.3's index lost the clock of (graphIndexes.ts, `dropped`) has one clock node
 * more for every restart that followed; every write would bind them all. Merged when found; a
 * read-only replica keeps them (its primary's Relay merges, and that reaches it).
 */
export const mergeClocks = Effect.fn("relay/graph/mergeClocks")(function*(graph: Graph) {
  const counted = yield* driverCall(() => graph.roQuery<{ n: number }>("MATCH (c:RelayClock) RETURN count(c) AS n"))
    .pipe(
      Effect.map((reply) => reply.data?.[0]?.n ?? 0),
      Effect.catchIf((e) => e.reason === "no_graph", () => Effect.succeed(0))
    )
  if (counted <= 1) return
  yield* driverCall(() => graph.query(mergeClocksQuery)).pipe(
    Effect.zipRight(
      Effect.logWarning("merged the memory's clock nodes that FalkorDB's index had lost").pipe(
        Effect.annotateLogs({ nodes: counted })
      )
    ),
    Effect.catchIf(
      (e) => e.reason === "refused" && /\bREADONLY\b/.test(e.detail),
      (e) =>
        Effect.logWarning("the memory's clock nodes could not be merged: the database is a read-only replica").pipe(
          Effect.annotateLogs({ detail: e.detail })
        )
    )
  )
})
