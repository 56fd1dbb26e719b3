import { Effect, Schema } from "effect"
import type { ImportedNote } from "../../domain/imported.js"
import { IsoFromStamp } from "../../domain/time.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { DecisionRow as BriefingDecision, WithdrawalRow as BriefingWithdrawal } from "./briefingRows.js"
import { FactFromRow, factMap } from "./projection.js"

/**
 * The imports a briefing's window holds (their Import records' stamps, set when each ended, in
 * commit order: transfer/transferText.ts) and what each brought, found by `import_id`. The Import
 * nodes are one an import; retractions and confirmations are read from their own labels (few). The
 * decisions are edges on facts, so theirs is read through the SUPERSEDES.import_id index: without
 * it FalkorDB traversed from every node (4.9 s at 1M facts, past the statement limit).
 */
const importsQuery = `MATCH (i:Import) WHERE i.created_at > $since AND i.created_at <= $asOf ` +
  `WITH i ORDER BY i.created_at LIMIT $limit ` +
  `RETURN i.id AS id, i.by AS by, i.created_at AS at, i.sha256 AS sha256`

export const importedDecisionsQuery = `MATCH (w)-[r:SUPERSEDES]->(l) WHERE r.import_id IN $ids ` +
  `WITH w, r, l ORDER BY r.created_at LIMIT $limit ` +
  `RETURN r.import_id AS import_id, ${factMap("w")} AS winner, ${factMap("l")} AS loser, r.reason AS reason, ` +
  `r.resolved_by AS resolved_by, r.created_at AS created_at`

const retractionsQuery = `MATCH (r:Retraction) WHERE r.import_id IN $ids MATCH (r)-[x:RETRACTS]->(f) ` +
  `WITH r, x, f ORDER BY x.created_at LIMIT $limit ` +
  `RETURN r.import_id AS import_id, ${factMap("f")} AS fact, r.reason AS reason, r.retracted_by AS retracted_by, ` +
  `x.created_at AS created_at`

const confirmationsQuery = `MATCH (c:Confirmation) WHERE c.import_id IN $ids MATCH (c)-[k:CONFIRMS]->(f) ` +
  `WITH c, k, f ORDER BY k.created_at LIMIT $limit ` +
  `RETURN c.import_id AS import_id, ${factMap("f")} AS fact, c.reason AS reason, c.confirmed_by AS confirmed_by, ` +
  `k.created_at AS created_at`

const ImportRow = Schema.Struct({ id: Schema.String, by: Schema.String, at: IsoFromStamp, sha256: Schema.String })
/** A briefing's rows (briefingRows.ts), each with the import that brought it. */
const DecisionRow = Schema.Struct({ import_id: Schema.String, ...BriefingDecision.fields })
const WithdrawalRow = Schema.Struct({ import_id: Schema.String, ...BriefingWithdrawal.fields })
const ConfirmationRow = Schema.Struct({
  import_id: Schema.String,
  fact: FactFromRow,
  reason: Schema.String,
  confirmed_by: Schema.String,
  created_at: IsoFromStamp
})

/** The imports of (since, asOf] with at most `limit` of each kind of record they brought. */
export const importedNotes = Effect.fn("relay/factStore/importedNotes")(function*(
  db: GraphDatabase["Type"],
  since: number,
  asOf: number,
  limit: number
) {
  const imports = yield* db.read(importsQuery, { since, asOf, limit }, ImportRow)
  if (imports.length === 0) return []
  const ids = imports.map((i) => i.id)
  const params = { ids, limit: limit + 1 }
  const [decisions, retractions, confirmations] = yield* Effect.all([
    db.read(importedDecisionsQuery, params, DecisionRow),
    db.read(retractionsQuery, params, WithdrawalRow),
    db.read(confirmationsQuery, params, ConfirmationRow)
  ], { concurrency: "unbounded" })
  const more = decisions.length > limit || retractions.length > limit || confirmations.length > limit
  const of = <A extends { readonly import_id: string }>(rows: ReadonlyArray<A>, id: string) =>
    rows.slice(0, limit).filter((r) => r.import_id === id).map(({ import_id: _, ...rest }) => rest)
  return imports.map((i): ImportedNote => ({
    import_id: i.id,
    by: i.by,
    at: i.at,
    file_sha256: i.sha256,
    decisions: of(decisions, i.id),
    retractions: of(retractions, i.id),
    confirmations: of(confirmations, i.id),
    more
  }))
})
