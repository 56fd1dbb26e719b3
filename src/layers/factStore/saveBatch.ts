import { clockBind } from "../database/clock.js"
import { schemaVersion } from "../database/version.js"
import { markFork } from "./forkWindow.js"
import { addDocs, termCountsClause } from "./termCounts.js"

/**
 * The batch form of a plain save's statement (saveFact.ts `saveQueries.root` / `.child`): `UNWIND
 * $batch` over a `CALL {}` subquery that is the lone statement with each `$param` read from its row
 * (`gc_b`). FalkorDB 4.16 runs a subquery once per row, in order, each row seeing what the rows before
 * it wrote (siblings, the clock's stamp and counts, an id a request_id made), so the rows are the saves
 * run one after another, in one statement.
 *
 * Its MERGE is the one clause that does not hold up inside a subquery: FalkorDB 4.16.3 runs a MERGE in
 * `CALL {}` for the first row only (later rows are dropped, or their MERGE skipped, even inside a
 * FOREACH), and a MERGE in FOREACH does not find what an earlier MERGE of the same statement created.
 * So the batch form has none inside the subquery:
 * - the clock node and its CLOCK edge are made sure of once, before the rows (then MATCHed);
 * - the fact's BUILDS_ON and FORKS edges are CREATEd (only a fact this row made gets them, and a new
 *   fact has none yet);
 * - a parent's ForkMark is found through its MARKS edge and updated, or created;
 * - the term counts are added once, after the rows, for the facts the rows made, a term's count
 *   summed over them (`$gc_terms`: each distinct term of the batch with the rows that hold it).
 * Each replaced fragment must be in the statement exactly once, or this module fails to load.
 */

const row = "gc_b"

const once = (text: string, fragment: string, by: string) => {
  const at = text.indexOf(fragment)
  if (at < 0 || text.indexOf(fragment, at + 1) >= 0) {
    throw new Error(`saveBatch: the save statement changed; no single "${fragment.slice(0, 60)}"`)
  }
  return text.slice(0, at) + by + text.slice(at + fragment.length)
}

const clockMerge = clockBind([]).slice(0, clockBind([]).indexOf(" WITH ") + 1)
const clockEdgeWrite = /FOREACH \(clk_n IN .*?MERGE \(clk_n\)-\[:CLOCK\]->\(clk_n\)\) /

/** The parent's mark: its MARKS edge when it has one (by type(): see termCounts.ts `docsOf`), else a new one. */
const markForkInBatch = (fragment: string) => {
  const sets = fragment.slice(fragment.indexOf(" SET ") + 1, -2)
  return `WITH *, CASE WHEN indegree(p, 'MARKS') > 0 THEN head([(p)<-[gc_mk]-() WHERE type(gc_mk) = 'MARKS' | gc_mk]) END AS gc_mark ` +
    `FOREACH (fw_m IN CASE WHEN size(differing) > 0 AND gc_mark IS NOT NULL THEN [gc_mark] ELSE [] END | ${sets}) ` +
    `FOREACH (_ IN CASE WHEN size(differing) > 0 AND gc_mark IS NULL THEN [1] ELSE [] END | ` +
    `CREATE (:ForkMark)-[fw_m:MARKS]->(p) ${sets}) `
}

const withoutMerge = (lone: string) => {
  let s = once(lone, clockMerge, "MATCH (clk_node:RelayClock {id: 0}) ")
  const edge = clockEdgeWrite.exec(s)
  if (edge === null) throw new Error("saveBatch: the save statement changed; no clock edge write")
  s = s.replace(clockEdgeWrite, "")
  s = once(s, termCountsClause, "WITH *, f.created_at = ts AS gc_made ")
  if (s.includes("MERGE (f)-[:BUILDS_ON]->(p) ")) {
    s = once(
      s,
      "MERGE (f)-[:BUILDS_ON]->(p) ",
      "FOREACH (gc_x IN CASE WHEN gc_made THEN [1] ELSE [] END | CREATE (f)-[:BUILDS_ON]->(p)) "
    )
    s = once(s, "MERGE (f)-[:FORKS]->(x))", "CREATE (f)-[:FORKS]->(x))")
    const mark = markFork("differing", "made")
    s = once(s, mark, markForkInBatch(mark))
  }
  if (s.includes("MERGE")) throw new Error("saveBatch: a MERGE is left in the batch form of a save")
  return s
}

/**
 * Every clause keeps the row (and, once the fact is written, whether this row made it), and every
 * parameter is the row's field.
 */
const carried = (body: string) => {
  const made = body.indexOf("gc_made ")
  const carry = (part: string, vars: string) =>
    part.replace(/\bWITH (DISTINCT )?/g, (_m, distinct: string | undefined) => `WITH ${distinct ?? ""}${vars}, `)
  return (carry(body.slice(0, made), row) + carry(body.slice(made), `${row}, gc_made`))
    .replace(/WITH gc_b, \*, /g, "WITH *, ")
    .replace(/WITH gc_b, gc_made, \*, /g, "WITH *, ")
    .replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, `${row}.$1`)
}

/** The batch statement for a plain save's statement, whose rows carry `columns`; params: `batch`, `gc_terms`. */
export const batchOfSave = (lone: string, columns: ReadonlyArray<string>): string => {
  const body = carried(withoutMerge(lone))
  const last = body.lastIndexOf("RETURN ")
  const inner = `${body.slice(0, last)}RETURN gc_made, ${body.slice(last + "RETURN ".length)}`
  return `MERGE (gc_clk:RelayClock {id: 0}) ON CREATE SET gc_clk.schema = ${schemaVersion} ` +
    `WITH gc_clk, [(gc_clk)-[gc_e]->(gc_clk) WHERE type(gc_e) = 'CLOCK' | gc_e] AS gc_es ` +
    `FOREACH (gc_n IN CASE WHEN size(gc_es) = 0 THEN [gc_clk] ELSE [] END | ` +
    `MERGE (gc_n)-[:CLOCK]->(gc_n)) ` +
    `WITH count(*) AS gc_one UNWIND $batch AS ${row} CALL { WITH ${row} ${inner} } ` +
    `WITH collect({gc_k: ${row}.gc_k, gc_made: gc_made, ${columns.map((c) => `${c}: ${c}`).join(", ")}}) AS gc_rows ` +
    `WITH gc_rows, [r IN gc_rows WHERE r.gc_made | r.gc_k] AS gc_ks ` +
    `WITH gc_rows, [k IN range(0, size($batch) - 1) | k IN gc_ks] AS gc_flags ` +
    `FOREACH (c IN [c IN [c IN $gc_terms | [c[0], size([k IN c[1] WHERE gc_flags[k]])]] WHERE c[1] > 0] | ${
      addDocs("c[0]", "c[1]")
    }) ` +
    `WITH gc_rows UNWIND gc_rows AS gc_r RETURN gc_r.gc_k AS gc_k, ${
      columns.map((c) => `gc_r.${c} AS ${c}`).join(", ")
    }`
}

/** `$gc_terms` for rows whose `distinctTerms` are given in order: each term once, with the rows that hold it. */
export const batchTerms = (rows: ReadonlyArray<ReadonlyArray<string>>): Array<[string, Array<number>]> => {
  const holders = new Map<string, Array<number>>()
  for (const [k, terms] of rows.entries()) {
    for (const t of terms) {
      const h = holders.get(t)
      if (h === undefined) holders.set(t, [k])
      else h.push(k)
    }
  }
  return [...holders.entries()]
}
