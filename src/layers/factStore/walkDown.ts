import { mergeDepthCap } from "../../domain/rules.js"

/**
 * The facts below a fact when some build on several (docs/design/several-parents.md): BUILDS_ON
 * holds first parents only, a forest where a variable-length walk visits each fact once, and ALSO_ON
 * the others. So a walk down is rounds: the BUILDS_ON subtree, then the facts that name one of it
 * as an extra parent, and their subtrees, and so on. Only facts with an ALSO_ON edge in (`indegree`,
 * no traverse) start a round, so a memory without merges pays one walk and a few empty steps; a
 * round costs the facts it adds, never the paths to them. `mergeRounds` rounds are unrolled, and a
 * save that would put more merges than that on one line is refused (`merge_depth`, counting every
 * merge): so the rounds reach everything, and as each merge starts one walk at most, a fact is read
 * at most that many times more than in the first walk (nested merges, each on the one before,
 * made a round quadratic when only extra-parent hops counted).
 */
export const mergeRounds = mergeDepthCap

/**
 * Collects, of the facts bound as `d` over rows, those some fact names as an extra parent (down),
 * or that name extra parents themselves (up).
 */
export const hubsOf = (d: string, dir: Direction = "down"): string =>
  `collect(DISTINCT CASE WHEN ${dir === "down" ? "indegree" : "outdegree"}(${d}, 'ALSO_ON') > 0 THEN ${d} END)`

/** Down: what builds on a fact; up: what a fact builds on. */
export type Direction = "down" | "up"

const arrow = (dir: Direction, type: string) => dir === "down" ? `<-[:${type}]-` : `-[:${type}]->`

/**
 * Binds `out`: the facts reached through extra parents from the list `hubs` (the facts of a first
 * BUILDS_ON walk that some fact names as an extra parent), round after round, a fact possibly more
 * than once and possibly one the first walk had. Each round is a subquery on the last round's
 * merges alone, ending in an aggregation: one row even when there are none, at the cost of an empty
 * UNWIND (no big list is grouped over many rows, which would be quadratic). Carries `carry`.
 */
export const throughMerges = (
  hubs: string,
  out: string,
  carry: ReadonlyArray<string>,
  dir: Direction = "down"
): string => {
  const v = (name: string, k: number) => `${out}_${name}${k}`
  let q = ""
  for (let k = 1; k <= mergeRounds; k++) {
    const from = k === 1 ? hubs : v("h", k - 1)
    // A merge an earlier round walked from is not walked again: each merge starts one walk at most.
    const seen = Array.from({ length: k - 1 }, (_, i) => v("ms", i + 1))
    q += `CALL { WITH ${[from, ...seen].join(", ")} UNWIND ${from} AS ${v("a", k)} ` +
      `MATCH (${v("a", k)})${arrow(dir, "ALSO_ON")}(${v("m", k)}) ` +
      `WITH DISTINCT ${v("m", k)}${seen.length > 0 ? `, ${seen.join(" + ")} AS ${v("seen", k)}` : ""} ` +
      (seen.length > 0 ? `WHERE NOT ${v("m", k)} IN ${v("seen", k)} ` : "") +
      `MATCH (${v("m", k)})${arrow(dir, "BUILDS_ON*0..")}(${v("d", k)}) ` +
      `RETURN collect(${v("d", k)}) AS ${v("s", k)}, collect(DISTINCT ${v("m", k)}) AS ${v("ms", k)}${
        k < mergeRounds ? `, ${hubsOf(v("d", k), dir)} AS ${v("h", k)}` : ""
      } } `
  }
  const lists = Array.from({ length: mergeRounds }, (_, i) => v("s", i + 1))
  return q + `WITH ${carry.join(", ")}, ${lists.join(" + ")} AS ${out} `
}

/**
 * The edges below the merges in `hubs`, round after round as `throughMerges` walks them: each
 * ALSO_ON edge into the merges reached, and the BUILDS_ON edges of their subtrees, each as
 * `edge(parent, child)` (a Cypher list of numbers), for a caller that places the dependents itself
 * (domain/descendants.ts walks them breadth first, so a fact reached twice keeps its nearest place).
 * `keep(child)` filters the children (true: all). Binds `out`, carrying `carry`.
 */
export const edgesThroughMerges = (
  hubs: string,
  out: string,
  carry: ReadonlyArray<string>,
  edge: (parent: string, child: string) => string,
  keep: (child: string) => string = () => "true",
  /** Levels each round reads below a merge (null: all), as a first page reads its first walk. */
  depth: number | null = null
): string => {
  const v = (name: string, k: number) => `${out}_${name}${k}`
  const levels = depth === null ? "" : String(Math.max(0, depth - 1))
  let q = ""
  for (let k = 1; k <= mergeRounds; k++) {
    const from = k === 1 ? hubs : v("h", k - 1)
    const [a, m, p, d] = [v("a", k), v("m", k), v("p", k), v("d", k)]
    // Every edge into a merge is kept (a fact's place is its nearest), but a merge an earlier round
    // walked from is not walked again: each merge starts one walk at most.
    const seen = Array.from({ length: k - 1 }, (_, i) => v("ms", i + 1))
    q += `CALL { WITH ${from} UNWIND ${from} AS ${a} MATCH (${a})<-[:ALSO_ON]-(${m}) WHERE ${keep(m)} ` +
      `RETURN collect(${edge(a, m)}) AS ${v("e", k)}, collect(DISTINCT ${m}) AS ${v("ms", k)} } ` +
      `CALL { WITH ${[v("ms", k), ...seen].join(", ")} UNWIND ${v("ms", k)} AS ${m} ` +
      (seen.length > 0 ? `WITH ${m}, ${seen.join(" + ")} AS ${v("seen", k)} WHERE NOT ${m} IN ${v("seen", k)} ` : "") +
      `OPTIONAL MATCH (${m})<-[:BUILDS_ON*0..${levels}]-(${p})<-[:BUILDS_ON]-(${d}) ` +
      `WHERE ${keep(d)} ` +
      `RETURN collect(CASE WHEN ${d} IS NULL THEN NULL ELSE ${edge(p, d)} END) AS ${v("f", k)}, ` +
      `${hubsOf(d)} + [${v("x", k)} IN collect(DISTINCT ${m}) WHERE indegree(${v("x", k)}, 'ALSO_ON') > 0] AS ${
        v("h", k)
      } } `
  }
  const lists = Array.from({ length: mergeRounds }, (_, i) => [v("e", i + 1), v("f", i + 1)]).flat()
  return q + `WITH ${carry.join(", ")}, ${lists.join(" + ")} AS ${out} `
}
