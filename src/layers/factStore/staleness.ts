import { throughMerges } from "./walkDown.js"

/**
 * Staleness stored on write (domain/model/stored.ts, staleSince): every fact holds `stale_at`, the
 * stamp from which it is stale, or `neverStale`. The write that causes a change sets it inside its
 * own statement: a save copies it from the parent it links (`inheritedStale`), a decision, a
 * revision or a retraction lowers it on the loser's dependents (`markDependents`), reading the
 * stamp it has just written. FalkorDB runs one write statement of a graph at a time, so no writer
 * reads a stamp another is changing. It holds the earliest stamp, so a read as of any time
 * compares it with that time. A confirmation (confirm.ts) is the one write that raises it, below
 * the confirmed fact only, and keeps the span it replaces, so a read as of an earlier time still
 * sees the fact stale then.
 * A read takes `coalesce`: a fact written before it was stored (or by hand) counts as never stale
 * until the graph's migration (schemaVersion.ts) or `check-db --verify` says otherwise.
 */

/** The largest JavaScript Date: later than any stamp. Every fact holds a number, so reads can compare. */
export const neverStale = 8_640_000_000_000_000

/** The fact bound as `v`'s stored stamp. */
export const staleAt = (v: string): string => `coalesce(${v}.stale_at, ${neverStale})`

/** Stale now. */
export const staleNow = (v: string): string => `${staleAt(v)} < ${neverStale}`

/**
 * Stale as of the stamp `t` (a parameter or a bound name): from its stamp on, or within one of the
 * spans a confirmation closed (`stale_spans`, flat [from, until, ...], until excluded: the
 * confirmation's stamp). Without a confirmation above it a fact has no spans. The comprehension
 * variable is named after `v` and `t` (FalkorDB 4.16 binds one name once a query), the same for the
 * same call, so a query built per request keeps one text and its cached plan.
 */
export const staleBy = (v: string, t: string): string => {
  const i = `${v}_span_${t.replace(/\W+/g, "")}`
  return `(${staleAt(v)} <= ${t} OR any(${i} IN range(0, size(coalesce(${v}.stale_spans, [])) - 2, 2) ` +
    `WHERE ${v}.stale_spans[${i}] <= ${t} AND ${t} < ${v}.stale_spans[${i} + 1]))`
}

/**
 * What a fact saved under the fact bound as `p` stores: p's own stamp, or the first decision or
 * retraction on p, whichever is earlier. Variables are named after `p` (FalkorDB 4.16 binds a
 * comprehension variable once a query).
 */
export const inheritedStale = (p: string): string =>
  `reduce(${p}_m = ${staleAt(p)}, ${p}_x IN [(${p})<-[${p}_t:SUPERSEDES|RETRACTS]-() | ${p}_t.created_at] | ` +
  `CASE WHEN ${p}_x < ${p}_m THEN ${p}_x ELSE ${p}_m END)`

/**
 * Lowers the stamp of every fact below the fact bound as `x` to `at` (the stamp of the decision
 * or retraction just written on x) where it is later, and carries `carry` on (one row, as before).
 * A dependent already stale from an earlier stamp keeps it; a null `at` (nothing was written)
 * changes nothing. A MATCH, not a pattern comprehension: FalkorDB 4.16 builds each path of a
 * comprehension whole, so a walk 20,000 deep took 0.58 s and 200,000 deep 206 s; this walk marks
 * 200,000 dependents in 1.3 s (one parent a fact: one path each).
 */
/** What a marking carries past its walk (`kept`), and into it (`into`: a bare name `at` too). */
const markingNames = (x: string, at: string, carry: ReadonlyArray<string>) => {
  const kept = [...new Set([...carry, x])]
  return { kept, into: [...new Set([...kept, ...(/^\w+$/.test(at) ? [at] : [])])] }
}

export const markDependents = (x: string, at: string, carry: ReadonlyArray<string>): string => {
  // A WITH first, so it may follow a write; x and a bare name `at` go on with the carried names.
  const { into, kept } = markingNames(x, at, carry)
  const mark = (list: string, k: string) =>
    `FOREACH (${x}_n${k} IN [${x}_y${k} IN ${list} WHERE ${
      staleAt(`${x}_y${k}`)
    } > ${at}] | SET ${x}_n${k}.stale_at = ${at}) `
  // The first parents' subtree in one walk, collected: it is marked and its merges gathered from the
  // list (a FOREACH a row, to keep the rows for the gathering, cost twice as much: a 20,000 chain
  // from the root 34 ms, the list 20 ms, a WHERE on the walk 16 ms). Then what builds on it through
  // extra parents, usually nothing.
  return `WITH ${into.join(", ")} OPTIONAL MATCH (${x})<-[:BUILDS_ON*1..]-(${x}_dep) ` +
    `WITH ${into.join(", ")}, collect(${x}_dep) AS ${x}_deps ${mark(`${x}_deps`, "1")}` +
    `WITH ${into.join(", ")}, [${x}_h IN ${x}_deps WHERE indegree(${x}_h, 'ALSO_ON') > 0] + ` +
    `CASE WHEN indegree(${x}, 'ALSO_ON') > 0 THEN [${x}] ELSE [] END AS ${x}_hubs ` +
    throughMerges(`${x}_hubs`, `${x}_more`, into) +
    mark(`${x}_more`, "2") +
    `WITH ${kept.join(", ")} `
}

/** `markDependents` for a graph without merges (mergeGate.ts): the BUILDS_ON subtree is all that builds on x. */
export const leanMarkDependents = (x: string, at: string, carry: ReadonlyArray<string>): string => {
  const { into, kept } = markingNames(x, at, carry)
  return `WITH ${into.join(", ")} OPTIONAL MATCH (${x})<-[:BUILDS_ON*1..]-(${x}_dep) WHERE ${
    staleAt(`${x}_dep`)
  } > ${at} SET ${x}_dep.stale_at = ${at} WITH ${kept.join(", ")}, count(${x}_dep) AS ${x}_marked `
}

/**
 * `markDependents` for many decided facts in one statement (rows binding `x` and its stamp `at`):
 * each dependent is set once, to the earliest stamp above it. (Two rows' SETs on one node in
 * FalkorDB 4.16 do not apply in row order: the later-stamped one could win.) Returns `marked`.
 * First parents only: the bulk loaders (bench, hostile shapes) build graphs without merges.
 */
export const markDependentsOfRows = `MATCH (x)<-[:BUILDS_ON*1..]-(dep) WITH dep, min(at) AS at ` +
  `WHERE ${staleAt("dep")} > at SET dep.stale_at = at RETURN count(dep) AS marked`
