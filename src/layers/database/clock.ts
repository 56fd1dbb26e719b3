import { schemaVersion } from "./version.js"

const clockFields = ["last", "facts", "bytes", "docs", "terms"] as const
type ClockField = typeof clockFields[number]

/**
 * The clock's values as the map `clk` (`last`: the last stamp; `facts`, `bytes`, `docs`, `terms`:
 * what capacity.ts and termCounts.ts count), read from `clk_node` and its self-loop CLOCK edges
 * `clks`: each value the largest of them (every value only grows). They live on an edge, not the
 * node: FalkorDB 4.16 makes the first update of a node's property after any node was created cost
 * time in proportion to the graph's nodes (13 ms at 1M, 36 ms at 2M, in every save), an edge
 * property's ~0.1 ms at any size. The edge is only ever MERGEd without ON CREATE / ON MATCH (a
 * multi-row relationship MERGE with ON MATCH SET crashes FalkorDB 4.16.3, and one that creates the
 * edge drops rows), inside a FOREACH, and read through a list: were there ever two, both would be
 * read as one and written alike, never doubling a statement's rows.
 */
const clockValues = `${
  clockFields.map((f) =>
    `${f}: reduce(m = clk_node.${f}, k IN clks | CASE WHEN k.${f} > m OR m IS NULL THEN k.${f} ELSE m END)`
  ).join(", ")
}`

const clockOf = (carry: ReadonlyArray<string>) => {
  const keep = [...carry, "clk_node"].join(", ")
  // By type(), not -[:CLOCK]->: FalkorDB 4.16 caches a plan made before the type existed, and that
  // plan's typed pattern finds nothing ever after (the clock node has no other edge).
  return `WITH ${keep}, [(clk_node)-[clk_k]->(clk_node) WHERE type(clk_k) = 'CLOCK' | clk_k] AS clks ` +
    `WITH ${keep}, clks, {${clockValues}} AS clk `
}

/** What a statement carries past the clock, once bound: `WITH ${carry}, ${clockVars}`. */
export const clockVars = "clk_node, clks, clk"

/**
 * The clock every stamping write binds (clk_node, clks and the map clk), carrying `carry`; a new
 * graph's clock node is born at this version. A write changes it only through clockWrite.
 */
export const clockBind = (carry: ReadonlyArray<string>): string =>
  `MERGE (clk_node:RelayClock {id: 0}) ON CREATE SET clk_node.schema = ${schemaVersion} ${clockOf(carry)}`

/** The clock for a read, writing nothing (clk's values null when the graph has none). */
export const clockRead = (carry: ReadonlyArray<string>): string =>
  `OPTIONAL MATCH (clk_node:RelayClock {id: 0}) ${clockOf(carry)}`

/**
 * Sets the clock's values (expressions that may read `clk`) on every CLOCK edge when `when` holds.
 * A graph without an edge (new, or written by a Relay before schema 3) gets them on its node, once,
 * and its edge, which the next statement finds.
 */
export const clockWrite = (values: Partial<Record<ClockField, string>>, when = "true"): string => {
  const set = (v: string) => Object.entries(values).map(([f, e]) => `${v}.${f} = ${e}`).join(", ")
  return `FOREACH (clk_k IN CASE WHEN ${when} THEN clks ELSE [] END | SET ${set("clk_k")}) ` +
    `FOREACH (clk_n IN CASE WHEN (${when}) AND size(clks) = 0 THEN [clk_node] ELSE [] END | ` +
    `SET ${set("clk_n")} MERGE (clk_n)-[:CLOCK]->(clk_n)) `
}

/**
 * How far the graph's clock may stand past now and still be followed: a burst of saves runs it
 * ahead by one millisecond a fact (a bulk load of 1M facts in a minute, ~16 minutes), a stamp from
 * a file (before imports were bounded) or a hand by years. Past this a write takes the Clock's now
 * instead of the clock's next stamp, so one bad stamp never carries every later write into the future
 * (year 9999 made every save `+010000-01-01`, +275760-09-13 made them unreadable).
 */
export const clockRunAhead = 24 * 60 * 60_000

/** Whether the bound clock `clk` stands within clockRunAhead of `$now` (and so is followed). */
const followed = `clk.last IS NOT NULL AND clk.last >= $now AND clk.last <= $now + ${clockRunAhead}`

/** A write's commit-order stamp: just past the clock's last, or now when that is later (or the clock ran away). */
export const nextStamp = `CASE WHEN ${followed} THEN clk.last + 1 ELSE $now END`

/** A fence's stamp (a briefing's as_of): the clock's last, or now when that is later (or the clock ran away). */
export const fenceStamp = `CASE WHEN ${followed} THEN clk.last ELSE $now END`

/** One statement that sets the clock's values (import, and the bulk loaders), and the version when asked. */
export const clockSetQuery = (values: Partial<Record<ClockField, string>>, stampVersion = false): string =>
  `${clockBind([])}${clockWrite(values)}${stampVersion ? `WITH clk_node SET clk_node.schema = ${schemaVersion}` : ""}`
