import { Schema } from "effect"
import { Fact, type FactStatus } from "../../domain/fact.js"
import { IsoFromStamp } from "../../domain/time.js"
import { clockBind, clockVars, nextStamp } from "../database/clock.js"
import { edgeOf, oneHop } from "./oneHop.js"
import { staleBy, staleNow } from "./staleness.js"

/**
 * The Cypher map every query returns for a fact, with its status: its own two from its edges (one hop),
 * retracted = some incoming RETRACTS (from a Retraction); superseded = some incoming SUPERSEDES;
 * stale = some BUILDS_ON ancestor is superseded or retracted, as stored on write (staleness.ts).
 * (indegree() and a pattern comprehension, not exists(): FalkorDB 4.16's exists() in a projection is
 * always true; indegree(n, 'SUPERSEDES') is also several times cheaper than a pattern per fact.)
 * The comprehension variables are named after `v`: FalkorDB 4.16 binds a comprehension variable
 * once per query, so two maps sharing `(up)` made the second an Expand Into the first's node and
 * answered a null parent (found by test/rules/properties.test.ts on conflicts).
 */
export const factMap = (v: string, asOf = false): string => factMapWith(v, statusFlagExprs(v, asOf))

/** Three status flags as Cypher booleans: expressions (statusFlagExprs) or names they were bound to. */
export interface FlagExprs {
  readonly retracted: string
  readonly superseded: string
  readonly stale: string
}

/** A fact map whose flags were derived already (a query that filters on them before the map). */
export const factMapWith = (v: string, flags: FlagExprs): string =>
  `{${factFields(v)}, parent_id: ${parentIdOf(v)}, also_on: ${alsoOnOf(v)}, superseded: ${flags.superseded}, ` +
  `retracted: ${flags.retracted}, stale: ${flags.stale}}`

/** The ids of the facts `v` builds on after its first (builds_on), or null: one degree test per fact, a walk only for a merge. */
export const alsoOnOf = (v: string): string =>
  `CASE WHEN outdegree(${v}, 'ALSO_ON') > 0 THEN ${
    oneHop({ from: v, dir: "out", type: "ALSO_ON", path: `${v}_ap`, to: `${v}_ao`, yields: `${v}_ao.id` })
  } END`

/** The id of the fact bound as `v`'s parent, or null for a root. */
export const parentIdOf = (v: string): string =>
  `head(${oneHop({ from: v, dir: "out", type: "BUILDS_ON", path: `${v}_pp`, to: `${v}_up`, yields: `${v}_up.id` })})`

/** The three status flags of the fact bound as `v`, as Cypher expressions (see factMap); as of `$asOf` when asked. */
export const statusFlagExprs = (v: string, asOf = false) =>
  asOf
    ? {
      ...ownFlagsAsOf(v),
      stale: staleBy(v, "$asOf")
    }
    : {
      superseded: `indegree(${v}, 'SUPERSEDES') > 0`,
      retracted: `indegree(${v}, 'RETRACTS') > 0`,
      stale: staleNow(v)
    }

/**
 * As the memory stood at `$asOf` (time travel): only SUPERSEDES and RETRACTS edges stamped by then
 * count. indegree() cannot filter by stamp, so these are pattern comprehensions, used only when a
 * read asks for a past time. Their path and the fact at its other end are named, uniquely in the
 * query: FalkorDB 4.16 binds a reused comprehension variable once and then answers nothing for the
 * second. They name RETRACTS, which schema.ts makes exist at start (see there on cached plans).
 */
const ownFlagsAsOf = (v: string) => ({
  superseded: `size(${stampedBy(v, "SUPERSEDES", `${v}_s`)}) > 0`,
  retracted: `size(${stampedBy(v, "RETRACTS", `${v}_x`)}) > 0`
})

/** The edges of `type` into `v` stamped by `$asOf`, one `1` each. */
const stampedBy = (v: string, type: string, path: string) =>
  oneHop({
    from: v,
    dir: "in",
    type,
    path,
    to: `${path}_by`,
    where: `${edgeOf(path)}.created_at <= $asOf`,
    yields: "1"
  })

/** A fact's own two flags as of `$asOf`, as map entries (context knows staleness from its walk). */
export const ownStatusAsOf = (v: string): string => {
  const flags = ownFlagsAsOf(v)
  return `superseded: ${flags.superseded}, retracted: ${flags.retracted}`
}

/** The status named by three flags (Cypher booleans), as `statusFrom` derives it. */
export const statusCase = (flags: FlagExprs) =>
  `CASE WHEN ${flags.retracted} THEN 'retracted' WHEN ${flags.superseded} THEN 'superseded' ` +
  `WHEN ${flags.stale} THEN 'stale' ELSE 'active' END`

/** The status of a fact map bound as `m` (a factMap). */
export const statusOf = (m: string): string =>
  statusCase({ retracted: `${m}.retracted`, superseded: `${m}.superseded`, stale: `${m}.stale` })

/**
 * A fact's stored fields, without parent_id and status: for queries that know those from the walk
 * they made (context and impact), where a pattern per fact would cost more than the walk itself.
 */
export const factFields = (v: string): string =>
  `id: ${v}.id, content: ${v}.content, written_by: ${v}.written_by, session_id: ${v}.session_id, ` +
  `created_at: ${v}.created_at`

/** What `factFields` returns: a fact's stored fields, its stamp decoded to ISO. */
export const storedFields = {
  id: Schema.String,
  content: Schema.String,
  written_by: Schema.String,
  session_id: Schema.String,
  created_at: IsoFromStamp
}

/** What a fact map says of a fact's status (see `factMap`). */
const statusFlags = { superseded: Schema.Boolean, retracted: Schema.Boolean, stale: Schema.Boolean }
type StatusFlags = Schema.Struct.Type<typeof statusFlags>

/** A status from its flags, by the contract's precedence: retracted > superseded > stale > active. */
export const statusFrom = (f: StatusFlags): FactStatus =>
  f.retracted ? "retracted" : f.superseded ? "superseded" : f.stale ? "stale" : "active"

const flagsOf = (status: FactStatus): StatusFlags => ({
  superseded: status === "superseded",
  retracted: status === "retracted",
  stale: status === "stale"
})

/**
 * A fact map (`factMap`, `childMap`, conflicts' parent map) decoded to the Fact every tool shows,
 * its status derived and its stamp in ISO in the same step. A row that is not a fact (a null
 * content, a stamp that is text) fails here, and the query ends as a `CorruptRow` (decodeRows.ts).
 */
export const FactFromRow = Schema.transform(
  Schema.Struct({
    ...storedFields,
    parent_id: Schema.NullOr(Schema.String),
    also_on: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
    ...statusFlags
  }),
  Fact,
  {
    strict: true,
    // Field by field: an object rest and spread here cost ~2 us a row, most of a row's decoding.
    decode: (row) => ({
      id: row.id,
      content: row.content,
      written_by: row.written_by,
      session_id: row.session_id,
      created_at: row.created_at,
      parent_id: row.parent_id,
      // Every parent, the first first, only for a fact on several (builds_on).
      ...(row.also_on === undefined || row.also_on === null || row.parent_id === null
        ? {}
        : { builds_on: [row.parent_id, ...row.also_on] }),
      status: statusFrom(row)
    }),
    encode: ({ builds_on, status, ...fact }) => ({
      ...fact,
      ...(builds_on === undefined ? {} : { also_on: builds_on.slice(1) }),
      ...flagsOf(status)
    })
  }
)

/** A row whose one column, `fact`, is a fact map. */
export const FactColumn = Schema.Struct({ fact: FactFromRow })

/** A fact of a walk up one chain (context): its parent is the next fact read, so the row has none. */
export const ChainFactRow = Schema.Struct({ ...storedFields, ...statusFlags })

/** A chain fact with the parent its walk found, in Fact's field order. */
export const withParent = (f: typeof ChainFactRow.Type, parent_id: string | null): Fact => ({
  id: f.id,
  content: f.content,
  written_by: f.written_by,
  session_id: f.session_id,
  created_at: f.created_at,
  parent_id,
  status: statusFrom(f)
})

/** The stamp a fact was shown with, back as the stored milliseconds (exact: see `Stamp`), for keysets. */
export const stampOf = (fact: { readonly created_at: string }): number => Date.parse(fact.created_at)

/**
 * The commit-order stamp: the later of the Clock's now and just past the graph's last stamp.
 * FalkorDB runs one write statement at a time per graph, so stamps taken inside the statement
 * follow commit order and never repeat. Binds the clock (clockVars) and `ts`; carries the listed
 * variables. The statement records the stamp with `clockWrite({ last: "ts" }, when)`.
 */
export const stampClause = (carry: ReadonlyArray<string>): string =>
  `${clockBind(carry)}WITH ${[...carry, clockVars].join(", ")}, ` +
  `${nextStamp} AS ts`
