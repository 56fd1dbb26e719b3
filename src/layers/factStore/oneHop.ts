/**
 * A pattern comprehension over the edges of one type at a bound fact, written as a variable-length
 * pattern of at most one hop. FalkorDB 4.16 runs a plain `[(v)-[:T]->(x) | ...]` as a Conditional
 * Traverse for each row, which builds a matrix each time: 25-40 us a row on the 100k bench graph
 * (0.27 ms for a page of 11 hits), while `*0..1` walks the node's adjacency (about 1 us a row).
 * (`*1..1` does not help: the planner turns it back into the plain traverse.) The path of length 0,
 * the fact itself, is left out; the edge is `edgeOf(path)`.
 * Every fact map uses it (writes return them too); a write statement's own checks on one or two
 * facts keep the plain pattern, where the difference is a few microseconds.
 */
export const oneHop = (o: {
  /** The bound fact. */
  readonly from: string
  /** `both`: either direction (a COMPATIBLE record, one edge a pair, whichever way it was made). */
  readonly dir: "out" | "in" | "both"
  readonly type: string
  /** The path and the fact at its other end, named uniquely in the query (see projection.ts). */
  readonly path: string
  readonly to: string
  /** A condition on the edge or the other fact, if any. */
  readonly where?: string
  /** What each edge gives. */
  readonly yields: string
}): string => {
  const { hop, pattern } = oneHopMatch(o)
  return `[${pattern} WHERE ${hop}${o.where === undefined ? "" : ` AND (${o.where})`} | ${o.yields}]`
}

/** The one edge of a `oneHop` path. */
export const edgeOf = (path: string): string => `relationships(${path})[0]`

/**
 * The same one hop in a MATCH, as a pattern and the condition that leaves out the zero-length path.
 * Over many rows FalkorDB 4.16 ran a plain one-hop MATCH at ~4 us a row, and as much again for a
 * label on the far end (a traverse of its own); the path walks the adjacency, a quarter less time
 * for relay_detect_conflicts at 100k. Leave the far end unlabelled where the type implies it.
 */
export const oneHopMatch = (o: {
  readonly from: string
  readonly dir: "out" | "in" | "both"
  readonly type: string
  readonly path: string
  readonly to: string
}): { readonly pattern: string; readonly hop: string } => ({
  pattern: `${o.path} = (${o.from})${o.dir === "in" ? "<-" : "-"}[:${o.type}*0..1]${
    o.dir === "out" ? "->" : "-"
  }(${o.to})`,
  hop: `length(${o.path}) = 1`
})
