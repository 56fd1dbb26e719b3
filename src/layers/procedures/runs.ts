import { Effect, Schema } from "effect"
import { InvalidInput, noFactWithId } from "../../domain/errors.js"
import { type NewRun, notAProcedure, type Run, RunFromRow } from "../../domain/procedures.js"
import { toIso } from "../../domain/time.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { runCounts } from "./records.js"

/**
 * The Cypher that records one run of the procedure bound as `p` (its counts read first as `s` and `f`):
 * the counts go up on the procedure's node in the same statement that makes the Run, so they are
 * never counted at read time and no concurrent run is lost (FalkorDB runs one write at a time a
 * graph). Each run takes the next place `n` of its procedure and a `slot` ("<procedure id>#<n>",
 * indexed), so a page of runs is exact lookups however many runs there are. `cond` says whether it
 * runs; the other names are parameters or bound variables of the caller. Shared with the task
 * finish (layers/tasks/finish.ts), which records the run of the procedure a task follows.
 */
export const runWrite = (o: {
  p: string
  s: string
  f: string
  cond: string
  id: string
  outcome: string
  step: string
  note: string
  by: string
  task: string
}) =>
  `FOREACH (_ IN CASE WHEN ${o.cond} THEN [1] ELSE [] END | ` +
  `SET ${o.p}.runs_ok = ${o.s} + CASE WHEN ${o.outcome} = 'success' THEN 1 ELSE 0 END, ` +
  `${o.p}.runs_failed = ${o.f} + CASE WHEN ${o.outcome} = 'failure' THEN 1 ELSE 0 END ` +
  `CREATE (:Run {id: ${o.id}, slot: ${o.p}.id + '#' + toString(${o.s} + ${o.f} + 1), procedure_id: ${o.p}.id, ` +
  `n: ${o.s} + ${o.f} + 1, outcome: ${o.outcome}, failed_step: ${o.step}, note: ${o.note}, ran_by: ${o.by}, ` +
  `created_at: $now, task_id: ${o.task}})-[:RAN {created_at: $now}]->(${o.p})) `

export const runMap = (r: string) =>
  `{id: ${r}.id, procedure_id: ${r}.procedure_id, outcome: ${r}.outcome, failed_step: ${r}.failed_step, ` +
  `note: ${r}.note, ran_by: ${r}.ran_by, created_at: ${r}.created_at, task_id: ${r}.task_id}`

const recordQuery = `MATCH (p:Fact {id: $procedure}) OPTIONAL MATCH (old:Run {id: $id}) ` +
  `WITH p, old, coalesce(p.runs_ok, 0) AS s, coalesce(p.runs_failed, 0) AS f ` +
  runWrite({
    p: "p",
    s: "s",
    f: "f",
    cond: "old IS NULL AND p.kind = 'procedure'",
    id: "$id",
    outcome: "$outcome",
    step: "$step",
    note: "$note",
    by: "$by",
    task: "null"
  }) +
  `RETURN p.kind AS kind, s, f, CASE WHEN old IS NULL THEN null ELSE ${runMap("old")} END AS old`

const RecordRow = Schema.Struct({
  kind: Schema.NullOr(Schema.String),
  s: Schema.Number,
  f: Schema.Number,
  old: Schema.NullOr(RunFromRow)
})

export const recordRun = Effect.fn("relay/procedures/recordRun")(
  function*(db: GraphDatabase["Type"], now: number, r: NewRun) {
    const rows = yield* db.write(recordQuery, {
      procedure: r.procedureId,
      id: r.id,
      outcome: r.outcome,
      step: r.step,
      note: r.note,
      by: r.ranBy,
      now
    }, RecordRow)
    const row = rows[0]
    if (row === undefined) return yield* noFactWithId("procedure_id", r.procedureId)
    if (row.kind !== "procedure") return yield* notAProcedure("procedure_id", r.procedureId)
    if (row.old !== null) {
      const o = row.old
      if (
        o.procedure_id !== r.procedureId || o.outcome !== r.outcome || o.note !== r.note || o.failed_step !== r.step
      ) {
        return yield* new InvalidInput({
          message: "request_id: was already used for a different run; use a new request_id for a new run"
        })
      }
      return { run: o, runs: runCounts(row.s, row.f), existing: true }
    }
    const run: Run = {
      id: r.id,
      procedure_id: r.procedureId,
      outcome: r.outcome,
      failed_step: r.step,
      note: r.note,
      ran_by: r.ranBy,
      created_at: toIso(now),
      task_id: null
    }
    const ok = r.outcome === "success" ? 1 : 0
    return { run, runs: runCounts(row.s + ok, row.f + 1 - ok), existing: false }
  }
)

/**
 * A page of one procedure's runs, newest first: places `before - 1` down, each an exact lookup of
 * its indexed slot, so the page costs `limit` lookups with 100,000 runs as with 10.
 */
const pageQuery = `UNWIND $slots AS sl MATCH (r:Run {slot: sl}) RETURN ${runMap("r")} AS run, r.n AS n ORDER BY n DESC`
const PageRow = Schema.Struct({ run: RunFromRow, n: Schema.Number })

export const runsPage = Effect.fn("relay/procedures/runsPage")(
  function*(db: GraphDatabase["Type"], id: string, total: number, before: number | null, limit: number) {
    const top = Math.min(before === null ? total : before - 1, total)
    const slots = Array.from({ length: Math.max(0, Math.min(limit, top)) }, (_, k) => `${id}#${top - k}`)
    if (slots.length === 0) return { runs: [] as Array<Run>, next: null }
    const rows = yield* db.read(pageQuery, { slots }, PageRow)
    const last = top - slots.length + 1
    return { runs: rows.map((r) => r.run), next: last > 1 ? last : null }
  }
)
