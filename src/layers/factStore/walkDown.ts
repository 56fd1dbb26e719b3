import { mergeDepthCap } from "../../domain/rules.js"

/**
 * The facts below a fact when some build on several (docs/design/several-parents.md): BUILDS_ON
 * holds first parents only, a forest where a variable-length walk visits each fact once, and ALSO_ON
 * the others. So a walk down is rounds: the BUILDS_ON subtree, then the facts that name one of it
 * as an extra parent, and their subtrees, and so on. Only facts with an ALSO_ON edge in (`indegree`,
 * no traverse) start a round, so a memory without merges pays one walk and a few empty steps; a
 * round costs the facts it adds, never the paths to them. `mergeRounds` rounds are unrolled, and a
 * save that would put a fact more extra-parent hops below a fact than that is refused (`merge_depth`).
 */
export const mergeRounds = mergeDepthCap

/**
 * Binds `out`: the facts below the fact bound as `x` (x excluded), a fact possibly more than once,
 * with `carry` carried on. One row in, one row out: each aggregation groups on the carried names and
 * the lists so far, over as many rows as there are merges reached (a big list grouped over many
 * rows would be quadratic).
 */
export const factsBelow = (x: string, out: string, carry: ReadonlyArray<string>): string => {
  const v = (name: string, k: number) => `${out}_${name}${k}`
  const lists = (k: number) => Array.from({ length: k }, (_, i) => v("s", i))
  const keep = (k: number) => [...carry, ...lists(k)].join(", ")
  const orNull = (list: string) => `CASE WHEN size(${list}) = 0 THEN [null] ELSE ${list} END`
  const hubs = (d: string) => `collect(CASE WHEN indegree(${d}, 'ALSO_ON') > 0 THEN ${d} END)`
  let q = `OPTIONAL MATCH (${x})<-[:BUILDS_ON*1..]-(${v("d", 0)}) ` +
    `WITH ${carry.join(", ")}, collect(${v("d", 0)}) AS ${v("s", 0)}, ${hubs(v("d", 0))} + ` +
    `CASE WHEN indegree(${x}, 'ALSO_ON') > 0 THEN [${x}] ELSE [] END AS ${v("h", 0)} `
  for (let k = 1; k <= mergeRounds; k++) {
    q += `UNWIND ${orNull(v("h", k - 1))} AS ${v("a", k)} OPTIONAL MATCH (${v("a", k)})<-[:ALSO_ON]-(${v("m", k)}) ` +
      `WITH ${keep(k)}, collect(DISTINCT ${v("m", k)}) AS ${v("ms", k)} ` +
      `UNWIND ${orNull(v("ms", k))} AS ${v("b", k)} OPTIONAL MATCH (${v("b", k)})<-[:BUILDS_ON*0..]-(${v("d", k)}) ` +
      `WITH ${keep(k)}, collect(${v("d", k)}) AS ${v("s", k)}${
        k < mergeRounds ? `, ${hubs(v("d", k))} AS ${v("h", k)}` : ""
      } `
  }
  return q + `WITH ${carry.join(", ")}, ${lists(mergeRounds + 1).join(" + ")} AS ${out} `
}
