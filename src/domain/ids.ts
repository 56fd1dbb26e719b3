import { Schema } from "effect"

/** The fewest characters of a fact id that replies show and that inputs accept in its place. */
export const factIdPrefixMin = 8

/**
 * A whole UUID, or its first 8 or more characters: each group full before the next dash, so a
 * prefix is always a prefix of some UUID.
 */
const idOrPrefix =
  /^[0-9a-f]{8}(?:-[0-9a-f]{0,4}|-[0-9a-f]{4}-[0-9a-f]{0,4}|-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{0,4}|-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{0,12})?$/i

/** Marks a Schema whose decoded value is a task id or a prefix of one (resolved as fact ids are). */
export const TaskIdReference: unique symbol = Symbol.for("relay/TaskIdReference")

/** A whole id or its first 8 or more characters, lower-cased (a prefix is resolved before any tool sees it). */
export const idOrPrefixString = Schema.compose(
  Schema.String.pipe(
    Schema.filter((s) => idOrPrefix.test(s) || "must be an id Relay returned, or its first 8 or more characters", {
      // Not advertised: the pattern would cost the listing ~60 tokens a field, and the refusal names the rule.
      jsonSchema: {}
    })
  ),
  Schema.Lowercase
)

/** Marks a Schema whose decoded value is a fact id or a prefix of one (policies/factIdPrefixes.ts finds such fields). */
export const FactIdReference: unique symbol = Symbol.for("relay/FactIdReference")

/**
 * A fact id: a UUID made by Relay (clients only ever pass back ids they were given), or a unique
 * prefix of one of at least factIdPrefixMin characters, as replies show them. Relay makes ids lower
 * case; an upper-cased copy from a client is the same id, so it is lower-cased on decode. A prefix
 * is replaced by the whole id before any tool sees it (policies/factIdPrefixes.ts), so handlers
 * only ever get whole ids.
 */
export const FactId = idOrPrefixString.pipe(
  Schema.brand("FactId"),
  Schema.annotations({ [FactIdReference]: true, description: "Id or prefix" })
)
export type FactId = typeof FactId.Type

/**
 * Marks a Schema whose value is a name the client chooses (an author, a claimer, a session): the graph
 * keeps it and shows it, so policies/scanNames.ts scans every such field of every tool for secrets.
 */
export const NameField: unique symbol = Symbol.for("relay/NameField")

/**
 * Marks an AgentName field: names compare without case, and each is replaced by the spelling first
 * written (policies/agentNames.ts), so "Cursor" and "cursor" are one reader, writer and holder.
 */
export const AgentNameField: unique symbol = Symbol.for("relay/AgentNameField")

/** Who wrote or decided something: a label the client chooses, not an identity. */
export const AgentName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
    message: () => "must be 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit"
  }),
  Schema.annotations({ [NameField]: true, [AgentNameField]: true, description: "Your stable name" })
)

export const SessionId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, {
    message: () => "must be 1-128 characters of letters, digits, '.', '_', ':' or '-', starting with a letter or digit"
  }),
  Schema.annotations({ [NameField]: true, description: "Choose one per conversation and reuse it" })
)
