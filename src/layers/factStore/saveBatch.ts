import { clockBind } from "../database/clock.js"
import { schemaVersion } from "../database/version.js"
import { carryWith, paramsOfRow } from "./batchRows.js"
import { markFork, opensWindow, writeMark } from "./forkMark.js"
import { edgeOf, oneHop } from "./oneHop.js"
import { inheritedStale, staleAt } from "./staleness.js"
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
 * - a parent's ForkMark is written after the rows, once a parent its rows mark (`marksOnce`);
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

/**
 * What a row does once per row in the lone statement but need not, or not as a matrix traverse. A
 * plain one-hop pattern is a Conditional Traverse, which builds a matrix for each row it runs on
 * (oneHop.ts): a lone save pays it once, a batch once a row, and at 100k facts the parent's decisions
 * and the siblings were the largest part of a batched row. As `*0..1` paths they walk the parent's
 * adjacency instead.
 */
const inheritedHop = `reduce(p_m = ${staleAt("p")}, p_x IN ${
  oneHop({
    from: "p",
    dir: "in",
    type: "SUPERSEDES|RETRACTS",
    path: "gc_ip",
    to: "gc_io",
    yields: `${edgeOf("gc_ip")}.created_at`
  })
} | CASE WHEN p_x < p_m THEN p_x ELSE p_m END)`
const siblingsLone = "OPTIONAL MATCH (p)<-[:BUILDS_ON|ALSO_ON]-(s:Fact) WHERE s.created_at < f.created_at "
// BUILDS_ON and ALSO_ON join facts only: the far end needs no label (a traverse of its own).
const siblingsHop =
  "OPTIONAL MATCH gc_sp = (p)<-[:BUILDS_ON|ALSO_ON*0..1]-(s) WHERE length(gc_sp) = 1 AND s.created_at < f.created_at "

/**
 * The parent's ForkMark, once a batch: a row only says whether it marks its parent (`gc_mark`: the
 * parent, and the stamp it opens the window at or null), and after the rows each parent marked gets
 * one MERGE, as the lone statement's, with the earliest opening stamp of its rows. In order that is
 * what the rows would leave: the first row that opens a window sets `opened` and later ones keep it,
 * `closed` and `root` are the same for every row, and no row reads a mark. (Its MERGE cannot run in
 * the `CALL {}`; see above.)
 */
const markOfRow = `WITH *, CASE WHEN size(differing) > 0 THEN [p, CASE WHEN ${
  opensWindow("differing", "made", "gc_ox")
} THEN f.created_at END] END AS gc_mark `

/** After the rows: each marked parent's mark, written once (`gc_marks`: [parent, opening stamp or null]). */
const marksOnce = `FOREACH (gc_m IN gc_marks | FOREACH (gc_pm IN [gc_m[0]] | ${
  writeMark("gc_pm", "gc_m[1] IS NOT NULL", "gc_m[1]")
})) `

/** [parent, the earliest opening stamp of its rows or null] for each parent a row of `gc_rows` marks. */
const marksOfRows =
  `reduce(gc_acc = [], gc_mr IN [gc_rm IN gc_rows WHERE gc_rm.gc_mark IS NOT NULL | gc_rm.gc_mark] | ` +
  `CASE WHEN any(gc_a IN gc_acc WHERE gc_a[0] = gc_mr[0]) ` +
  `THEN [gc_a2 IN gc_acc | CASE WHEN gc_a2[0] = gc_mr[0] AND gc_a2[1] IS NULL THEN [gc_a2[0], gc_mr[1]] ELSE gc_a2 END] ` +
  `ELSE gc_acc + [gc_mr] END)`

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
    s = once(s, markFork("differing", "made"), markOfRow)
    s = once(s, inheritedStale("p"), inheritedHop)
    s = once(s, siblingsLone, siblingsHop)
  }
  if (s.includes("MERGE")) throw new Error("saveBatch: a MERGE is left in the batch form of a save")
  return s
}

/**
 * Every clause keeps the row (and, once the fact is written, whether this row made it, and once its
 * siblings are read, the mark it leaves its parent), and every parameter is the row's field.
 */
const carried = (body: string) => {
  const made = body.indexOf("gc_made ")
  const marked = body.indexOf("AS gc_mark ")
  const afterMade = marked < 0
    ? carryWith(body.slice(made), `${row}, gc_made`)
    : carryWith(body.slice(made, marked), `${row}, gc_made`) +
      carryWith(body.slice(marked), `${row}, gc_made, gc_mark`)
  return paramsOfRow(
    (carryWith(body.slice(0, made), row) + afterMade).replace(/WITH gc_b, (gc_made, )?\*, /g, "WITH *, "),
    row
  )
}

/** The batch statement for a plain save's statement, whose rows carry `columns`; params: `batch`, `gc_terms`. */
export const batchOfSave = (lone: string, columns: ReadonlyArray<string>): string => {
  const body = carried(withoutMerge(lone))
  const last = body.lastIndexOf("RETURN ")
  const marks = body.includes("AS gc_mark ")
  const inner = `${body.slice(0, last)}RETURN gc_made, ${marks ? "gc_mark, " : ""}${
    body.slice(last + "RETURN ".length)
  }`
  return `MERGE (gc_clk:RelayClock {id: 0}) ON CREATE SET gc_clk.schema = ${schemaVersion} ` +
    `WITH gc_clk, [(gc_clk)-[gc_e]->(gc_clk) WHERE type(gc_e) = 'CLOCK' | gc_e] AS gc_es ` +
    `FOREACH (gc_n IN CASE WHEN size(gc_es) = 0 THEN [gc_clk] ELSE [] END | ` +
    `MERGE (gc_n)-[:CLOCK]->(gc_n)) ` +
    `WITH count(*) AS gc_one UNWIND $batch AS ${row} CALL { WITH ${row} ${inner} } ` +
    `WITH collect({gc_k: ${row}.gc_k, gc_made: gc_made, ${marks ? "gc_mark: gc_mark, " : ""}${
      columns.map((c) => `${c}: ${c}`).join(", ")
    }}) AS gc_rows ` +
    (marks ? `WITH gc_rows, ${marksOfRows} AS gc_marks ${marksOnce}` : "") +
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
