/**
 * A lone statement made the body of `UNWIND $batch AS <row> CALL { WITH <row> ... }` (group commit,
 * groupCommit.ts): every WITH keeps the row, every `$param` is the row's field. The save's batch form
 * (saveBatch.ts) and the links read's (links.ts) are both made with these.
 */

/** `part` with `vars` kept by each of its WITH clauses. */
export const carryWith = (part: string, vars: string): string =>
  part.replace(/\bWITH (DISTINCT )?/g, (_m, distinct: string | undefined) => `WITH ${distinct ?? ""}${vars}, `)

/** Each `$param` of `text` read from `row`'s field of that name. */
export const paramsOfRow = (text: string, row: string): string =>
  text.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, `${row}.$1`)

/**
 * The batch form of a read-only statement whose rows are `columns`: each batch row (`$batch`, with
 * `gc_k` its place) runs the lone statement, its ORDER BY and LIMIT its own, and its rows come back
 * with its `gc_k`.
 */
export const batchOfRead = (lone: string, columns: ReadonlyArray<string>, row: string): string =>
  `UNWIND $batch AS ${row} CALL { WITH ${row} ${paramsOfRow(carryWith(lone, row), row)} } ` +
  `RETURN ${row}.gc_k AS gc_k, ${columns.join(", ")}`
