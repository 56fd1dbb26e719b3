/**
 * A parameter as a Cypher literal: GRAPH.PROFILE through the client takes no parameters, so a test
 * (or a bench) that profiles a statement puts them in its `CYPHER name=value ...` prefix.
 */
export const cypherLiteral = (v: unknown): string =>
  v === null || v === undefined
    ? "null"
    : Array.isArray(v)
    ? `[${v.map(cypherLiteral).join(", ")}]`
    : typeof v === "object"
    ? `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}: ${cypherLiteral(x)}`).join(", ")}}`
    : JSON.stringify(v)

/** The `CYPHER ...` prefix of these parameters. */
export const inlineParams = (p: Readonly<Record<string, unknown>>): string =>
  Object.entries(p).map(([k, v]) => `${k}=${cypherLiteral(v)}`).join(" ")
