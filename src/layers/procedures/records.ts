import { Effect, Schema } from "effect"
import { laplace } from "../../domain/model/procedures.js"
import { type Procedure, versionsShown } from "../../domain/procedures.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { FactFromRow, factMap } from "../factStore/projection.js"

/**
 * Procedures by id, whole: the fact, its version, its Step nodes (preconditions then steps, each in
 * order; at most what one procedure holds), its run counts as stored on write (never counted here),
 * its earlier versions through the `lineage` list stored on it (exact lookups, at most
 * `versionsShown`) and the version that revises it. Each id is one index lookup; a missing id or a
 * fact of another kind is left out (the caller says which).
 */
const recordsQuery = `UNWIND $ids AS pid MATCH (p:Fact {id: pid}) WHERE p.kind = 'procedure' ` +
  `RETURN ${factMap("p")} AS fact, coalesce(p.version, 1) AS version, ` +
  `coalesce(p.runs_ok, 0) AS success, coalesce(p.runs_failed, 0) AS failure, ` +
  `[(p)-[:STEP]->(p_s:Step) | [p_s.part, p_s.i, p_s.text]] AS steps, ` +
  `[lid IN coalesce(p.lineage, [])[0..${versionsShown}] | lid] AS lineage, ` +
  `[(p)<-[:SUPERSEDES]-(p_n:Fact) WHERE p_n.kind = 'procedure' | [p_n.created_at, p_n.id]] AS revisers`

const Row = Schema.Struct({
  fact: FactFromRow,
  version: Schema.Number,
  success: Schema.Number,
  failure: Schema.Number,
  steps: Schema.Array(Schema.Tuple(Schema.String, Schema.Number, Schema.String)),
  lineage: Schema.Array(Schema.String),
  revisers: Schema.Array(Schema.Tuple(Schema.Number, Schema.String))
})

/**
 * The first version that revises it (by stamp, then id). Two can (two failures' lessons on one
 * version, or a person's decision between procedures): the edges' order is the graph's own, which
 * an import does not keep, so the choice is made here.
 */
const firstReviser = (revisers: ReadonlyArray<readonly [number, string]>): string | null =>
  revisers.reduce<readonly [number, string] | null>(
    (best, r) => (best === null || r[0] < best[0] || (r[0] === best[0] && r[1] < best[1]) ? r : best),
    null
  )?.[1] ?? null

const countsQuery = `UNWIND $ids AS pid MATCH (p:Fact {id: pid}) ` +
  `RETURN p.id AS id, coalesce(p.version, 1) AS version, coalesce(p.runs_ok, 0) AS success, ` +
  `coalesce(p.runs_failed, 0) AS failure`
const CountsRow = Schema.Struct({
  id: Schema.String,
  version: Schema.Number,
  success: Schema.Number,
  failure: Schema.Number
})

export const runCounts = (success: number, failure: number) => ({
  success,
  failure,
  rate: Math.round(laplace(success, failure) * 1000) / 1000
})

/** Preconditions first (a revision's lesson is its first), then the steps, each in its stored order. */
export const ordered = (steps: ReadonlyArray<readonly [string, number, string]>, part: string) =>
  steps.filter((s) => s[0] === part).sort((x, y) => x[1] - y[1]).map((s) => s[2])

export const procedureRecords = Effect.fn("relay/procedures/records")(
  function*(db: GraphDatabase["Type"], ids: ReadonlyArray<string>) {
    if (ids.length === 0) return new Map<string, Procedure>()
    const rows = yield* db.read(recordsQuery, { ids: [...ids] }, Row)
    const earlierIds = [...new Set(rows.flatMap((r) => r.lineage))]
    const earlier = earlierIds.length === 0
      ? []
      : yield* db.read(countsQuery, { ids: earlierIds }, CountsRow)
    const byId = new Map(earlier.map((e) => [e.id, e]))
    return new Map(rows.map((r): [string, Procedure] => [r.fact.id, {
      fact: r.fact,
      version: r.version,
      preconditions: ordered(r.steps, "pre"),
      steps: ordered(r.steps, "step"),
      runs: runCounts(r.success, r.failure),
      earlier: r.lineage.flatMap((id) => {
        const e = byId.get(id)
        return e === undefined ? [] : [{ id, version: e.version, runs: runCounts(e.success, e.failure) }]
      }),
      revised_by: firstReviser(r.revisers)
    }]))
  }
)

/** The kind of each fact named (null: a fact of no kind); a missing id is left out. */
const kindsQuery = `UNWIND $ids AS pid MATCH (p:Fact {id: pid}) RETURN p.id AS id, p.kind AS kind, ` +
  `coalesce(p.version, 1) AS version, coalesce(p.lineage, []) AS lineage, ` +
  `coalesce(p.runs_ok, 0) AS success, coalesce(p.runs_failed, 0) AS failure`
const KindRow = Schema.Struct({
  id: Schema.String,
  kind: Schema.NullOr(Schema.String),
  version: Schema.Number,
  lineage: Schema.Array(Schema.String),
  success: Schema.Number,
  failure: Schema.Number
})

export const factKinds = (db: GraphDatabase["Type"], ids: ReadonlyArray<string>) =>
  db.read(kindsQuery, { ids: [...ids] }, KindRow).pipe(Effect.map((rows) => new Map(rows.map((r) => [r.id, r]))))
