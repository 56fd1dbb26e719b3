import { Effect, Either, ParseResult, Schema } from "effect"
import type { DatabaseError } from "../../domain/errors.js"
import type { CypherParams, Statement } from "../../services/GraphDatabase.js"

/**
 * A row the database returned that its Schema refuses: a node damaged or written by something other
 * than Relay (a null content, a string created_at, a missing id). A defect, not a failure: no caller
 * can do anything about it, so the edge answers `internal` and logs this, which names the row and the
 * field but carries no more than a short excerpt of the value.
 */
export class CorruptRow extends Schema.TaggedError<CorruptRow>()("CorruptRow", { message: Schema.String }) {}

const excerpt = (text: string) => text.length <= 160 ? text : `${text.slice(0, 159)}…`

/**
 * The most specific issue only: a nullable column that fails lists "Expected null" beside the real
 * one, with the whole row as its value.
 */
const corrupt = (index: number, issue: ParseResult.ParseIssue) => {
  const issues = ParseResult.ArrayFormatter.formatIssueSync(issue)
  const deepest = issues.reduce((a, b) => b.path.length > a.path.length ? b : a, issues[0]!)
  return new CorruptRow({
    message: `row ${index} of a query did not decode: ${deepest.path.join(".") || "(row)"}: ${excerpt(deepest.message)}`
  })
}

/** Every row through `row`, the first one it refuses ending the query as a `CorruptRow` defect. */
export const decodeRows = <A, I>(row: Schema.Schema<A, I>) => {
  // Parsers are memoised per Schema AST by effect, so this costs a lookup, not a compile.
  const decode = ParseResult.decodeUnknownEither(row)
  return (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>> => {
    const decoded = new Array<A>(rows.length)
    for (let i = 0; i < rows.length; i++) {
      const result = decode(rows[i])
      if (Either.isLeft(result)) return Effect.die(corrupt(i, result.left))
      decoded[i] = result.right
    }
    return Effect.succeed(decoded)
  }
}

/** A statement given its optional row Schema, as one function (Statement's two signatures). */
type StatementRun = <A, I>(
  cypher: string,
  params: CypherParams | undefined,
  row: Schema.Schema<A, I> | undefined
) => Effect.Effect<ReadonlyArray<A> | void, DatabaseError>

export const statement = (run: StatementRun): Statement => {
  function decoded<A, I>(
    cypher: string,
    params: CypherParams,
    row: Schema.Schema<A, I>
  ): Effect.Effect<ReadonlyArray<A>, DatabaseError>
  function decoded(cypher: string, params?: CypherParams): Effect.Effect<void, DatabaseError>
  function decoded<A, I>(cypher: string, params?: CypherParams, row?: Schema.Schema<A, I>) {
    return run(cypher, params, row)
  }
  return decoded
}

/**
 * A Statement on a runner of raw rows: decoded by the row Schema when there is one, and dropped
 * (nothing to decode, nothing to hold unchecked) when there is none.
 */
export const decodingStatement = (
  raw: (cypher: string, params: CypherParams | undefined) => Effect.Effect<ReadonlyArray<unknown>, DatabaseError>
): Statement =>
  statement((cypher, params, row) =>
    row === undefined ? Effect.asVoid(raw(cypher, params)) : Effect.flatMap(raw(cypher, params), decodeRows(row))
  )
