/**
 * The properties of the records a person's choice leaves, named once: a decision's SUPERSEDES edge
 * (resolve.ts, a revision's in createFact.ts), a compatible record's COMPATIBLE edge
 * (compatible.ts) and a Retraction node with its RETRACTS edge (retract.ts), each written again by
 * an import (transfer/importRecords.ts). Each statement gives the values (Cypher expressions) and
 * renders them as a CREATE's map or a MERGE's ON CREATE SET.
 */

/** Where a record came from: a tool call (the call's id), an import (the Import record's id), or neither. */
export type Origin = { readonly call_id: string } | { readonly import_id: string } | Record<never, never>

type Props = Readonly<Record<string, string>>

/** What a decision and a compatible record hold: why, who chose, when. */
export const resolutionProps = (
  v: { readonly reason: string; readonly by: string; readonly at: string },
  origin: Origin
): Props => ({ reason: v.reason, resolved_by: v.by, created_at: v.at, ...origin })

/** A Retraction node's properties (its RETRACTS edge carries `created_at` alone: retractionOf). */
export const retractionProps = (
  v: { readonly id: string; readonly reason: string; readonly by: string; readonly at: string },
  origin: Origin
): Props => ({ id: v.id, reason: v.reason, retracted_by: v.by, created_at: v.at, ...origin })

/** The Retraction node and its RETRACTS edge to `fact`. */
export const retractionOf = (props: Props, fact: string) =>
  `(:Retraction ${asMap(props)})-[:RETRACTS ${asMap({ created_at: props["created_at"]! })}]->(${fact})`

/** As a CREATE's map: `{reason: $reason, ...}`. */
export const asMap = (props: Props) => `{${Object.entries(props).map(([k, v]) => `${k}: ${v}`).join(", ")}}`

/** As a MERGE's `ON CREATE SET x.reason = $reason, ...` (the first record kept for a repeat). */
export const onCreateSet = (x: string, props: Props) =>
  `ON CREATE SET ${Object.entries(props).map(([k, v]) => `${x}.${k} = ${v}`).join(", ")}`
