import { Effect, Schema } from "effect"
import type { GraphDatabase } from "../../services/GraphDatabase.js"

/**
 * The ids that start with each prefix, at most three each (two make a prefix ambiguous; a third
 * tells the refusal there are more than the two it names).
 * A range over the id index, not STARTS WITH: FalkorDB 4.16 plans STARTS WITH as a label scan and
 * the range as an index scan. Ids are lower-case hex and dashes, all below "g", so every id with
 * the prefix p lies in [p, p + "g").
 */
export const prefixQuery = (label: "Fact" | "Task") =>
  `UNWIND $prefixes AS p ` +
  `OPTIONAL MATCH (f:${label}) WHERE f.id >= p AND f.id < p + 'g' ` +
  `WITH p, collect(f.id) AS ids RETURN p AS prefix, ids[..3] AS ids`
const queries = { Fact: prefixQuery("Fact"), Task: prefixQuery("Task") }

const PrefixRow = Schema.Struct({ prefix: Schema.String, ids: Schema.Array(Schema.String) })

/** Of facts, or of tasks (`label`): both ids have an index. */
export const matchPrefixes = (
  db: GraphDatabase["Type"],
  prefixes: ReadonlyArray<string>,
  label: "Fact" | "Task" = "Fact"
) =>
  prefixes.length === 0
    ? Effect.succeed(new Map<string, ReadonlyArray<string>>())
    : db.read(queries[label], { prefixes: [...new Set(prefixes)] }, PrefixRow).pipe(
      Effect.map((rows) => new Map(rows.map((r) => [r.prefix, r.ids])))
    )
