import { Effect } from "effect"
import { createHash } from "node:crypto"

/** A statement whose own time in FalkorDB passes this is logged (stderr), by its shape only. */
export const slowStatementMillis = 50

/**
 * What a log line may say of a statement: a stable id (8 hex of SHA-256 of its text, the same for
 * every run of that statement) and its clauses in order (`MATCH>WITH>UNWIND>RETURN`): enough to find
 * it in the code, never its text or its parameters (which hold what users wrote).
 */
export const statementShape = (cypher: string): string => {
  const clauses = cypher.match(
    /\b(OPTIONAL MATCH|MATCH|MERGE|CREATE|UNWIND|WITH|WHERE|FOREACH|SET|DELETE|CALL|RETURN)\b/g
  )
  return `${createHash("sha256").update(cypher).digest("hex").slice(0, 8)} ${(clauses ?? []).join(">").slice(0, 200)}`
}

/** The server's own execution time of a reply (its "Query internal execution time"), not the time queued. */
export const internalMillis = (metadata: ReadonlyArray<string> | undefined): number | undefined => {
  for (const line of metadata ?? []) {
    const m = /Query internal execution time: ([\d.]+) milliseconds/.exec(line)
    if (m?.[1] !== undefined) return Number(m[1])
  }
  return undefined
}

/** Logs the statement when FalkorDB spent more than slowStatementMillis on it. */
export const logIfSlow = (cypher: string, metadata: ReadonlyArray<string> | undefined) => {
  const ms = internalMillis(metadata)
  return ms === undefined || ms <= slowStatementMillis
    ? Effect.void
    : Effect.logWarning("slow statement").pipe(
      Effect.annotateLogs({ statement: statementShape(cypher), millis: Math.round(ms) })
    )
}
