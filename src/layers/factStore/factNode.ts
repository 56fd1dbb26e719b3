import { storedText } from "../../domain/contentKey.js"
import { termsOf } from "../../domain/terms.js"
import type { CypherValue } from "../../services/GraphDatabase.js"

/**
 * The Fact node's properties, named once. Every statement that creates a Fact renders its CREATE
 * here: a save (createFact.ts; its batch form, saveBatch.ts, is made from that text), the bulk path
 * (saveMany.ts) and an import (transfer/importRecords.ts). Each statement says where each value
 * comes from, for every property, so one added here must be placed in all of them or they fail to
 * typecheck; `null` leaves it out of the CREATE (never stored, or set by a later clause).
 */
export const factProperties = [
  "id",
  "content",
  "norm",
  "hash",
  "written_by",
  "session_id",
  "kind",
  "contradicts",
  "created_at",
  "stale_at",
  "terms",
  "root",
  "merge_of",
  "merge_depth",
  "version",
  "lineage",
  "runs_ok",
  "runs_failed",
  // A vecf32 when RELAY_EMBEDDINGS_URL is set (vectors.ts); never read back into a reply.
  "embedding"
] as const

export type FactProperty = typeof factProperties[number]

/** A Cypher expression for each property, or null for one the CREATE leaves out. */
export type FactValues = { readonly [P in FactProperty]: string | null }

/** `(name:Fact {...})`: the node with every property that has a value. */
export const factNode = (name: string, values: FactValues): string =>
  `(${name}:Fact {${factProperties.flatMap((p) => (values[p] === null ? [] : [`${p}: ${values[p]}`])).join(", ")}})`

/** Every property from the field of the same name of `row` (an UNWIND's map; factRow builds one). */
export const fromRow = (row: string): FactValues =>
  Object.fromEntries(factProperties.map((p) => [p, `${row}.${p}`])) as Record<FactProperty, string>

/**
 * Every property from its place in `row`, a list in `fields`' order (tupleOf builds one): a batch's
 * parameter text without each row's field names, about a quarter less to send and parse.
 */
export const fromTuple = (row: string, fields: ReadonlyArray<string>): FactValues =>
  Object.fromEntries(
    factProperties.map((p) => [p, fields.includes(p) ? `${row}[${fields.indexOf(p)}]` : null])
  ) as FactValues

/** A row's values in `fields`' order, for fromTuple. */
export const tupleOf = <R extends Record<string, CypherValue>>(row: R, fields: ReadonlyArray<keyof R & string>) =>
  fields.map((f) => row[f]!)

/** A row for fromRow: a field for every property but those the statement gives otherwise. */
export type FactRowFor<Otherwise extends FactProperty> = {
  readonly [P in Exclude<FactProperty, Otherwise>]: CypherValue
}

/** What a caller gives of a new fact; the rest of factRow is derived from it. */
export interface GivenFact {
  readonly id: string
  readonly content: string
  readonly writtenBy: string
  readonly sessionId: string
  readonly kind: string | null
  readonly contradicts: ReadonlyArray<string> | null
}

/** The given properties of a new fact as stored: the text with its normalised form, key and terms. */
export const factRow = (f: GivenFact) => ({
  id: f.id,
  ...storedText(f.content),
  written_by: f.writtenBy,
  session_id: f.sessionId,
  kind: f.kind,
  contradicts: f.contradicts === null ? null : [...f.contradicts],
  terms: termsOf(f.content)
})

type Row = ReturnType<typeof factRow>
type Given = keyof Row

/** A lone save names its parameters in camel case: `$writtenBy` for written_by. */
const camel = (p: string) => p.replace(/_(.)/g, (_m, c: string) => c.toUpperCase())

type Camel<S extends string> = S extends `${infer A}_${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S

/** factRow as a lone save's parameters. */
export const factParams = (f: GivenFact) =>
  Object.fromEntries(Object.entries(factRow(f)).map(([p, v]) => [camel(p), v])) as {
    readonly [P in Given as Camel<P>]: Row[P]
  }

/** The fields factRow gives: the keys of one row (so the list is factRow's own). */
const given = Object.keys(
  factRow({ id: "", content: "", writtenBy: "", sessionId: "", kind: null, contradicts: null })
) as ReadonlyArray<Given>

/** The properties factRow gives, each from its parameter of factParams. */
export const fromParams: { readonly [P in Given]: string } = Object.fromEntries(
  given.map((p) => [p, `$${camel(p)}`])
) as Record<Given, string>
