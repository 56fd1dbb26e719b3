import { Effect, Option, Schema, Stream } from "effect"
import type { DatabaseError } from "../../domain/errors.js"
import { StoredKindSchema } from "../../domain/fact.js"
import {
  compareRecords,
  type CompatibleRecord,
  type ConfirmationRecord,
  type DecisionRecord,
  type FactRecord,
  kindOrder,
  type MemoryRecord,
  positionOf,
  type RecordKind,
  type RecordPosition,
  type RetractionRecord,
  type RunRecord,
  type TaskNoteRecord,
  type TaskRecord
} from "../../domain/memoryRecord.js"
import { Stamp, toIso } from "../../domain/time.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { alsoOnOf, parentIdOf } from "../factStore/projection.js"
import { ordered } from "../procedures/records.js"
import { aboutOf, finisher, withState } from "../tasks/taskMap.js"

/**
 * Every record of a graph in write order, a page at a time (keyset on created_at, kind, key), for
 * `npm run export`. Each page reads the next `pageSize` records of each kind and keeps the
 * `pageSize` first of them all, so no query returns more than one page per kind and memory holds at
 * most one page per kind. The range indexes on Fact.created_at, SUPERSEDES.created_at and
 * RETRACTS.created_at (and those of COMPATIBLE, CONFIRMS, Task and TaskNote) serve the lower bound.
 */
const pageSize = 1000

/** What the memory's facts are made of: the studio's live events follow these. */
export const factKinds = ["fact", "decision", "compatible", "retraction"] as const
/** Everything an export carries (the studio reads a confirmation's effect in statuses, not as an event). */
export const allKinds = [...factKinds, "confirmation", "task", "task_note", "run"] as const
type Kind = RecordKind
type Position = RecordPosition

/**
 * The records of one kind after the position: `match` binds `vars`, with `stamp` the record's stamp
 * and `key` its key. Only the stamp's lower bound is in the MATCH's WHERE, so the range index seeks
 * it; the tie-break on the key is tested after a projection (in the MATCH's WHERE, FalkorDB 4.16
 * scanned the whole index: 6 ms at 10k facts for a live poll that found nothing, 0.2 ms so). The
 * edges' end nodes are unlabelled (SUPERSEDES, COMPATIBLE and RETRACTS reach facts only): with
 * `:Fact` FalkorDB started from a label scan instead of the edge index (decisions: 18 ms -> 0.2 ms
 * at 10k for a poll that found nothing).
 */
const afterPosition = (match: string, vars: string, stamp: string, key: string) =>
  `${match} WHERE ${stamp} >= $stamp WITH ${vars}, ${stamp} AS at WHERE at > $stamp OR ${key} > $key ` +
  `WITH ${vars} ORDER BY ${stamp}, ${key} LIMIT $limit `

export const queries: Record<Kind, string> = {
  fact: `${afterPosition("MATCH (f:Fact)", "f", "f.created_at", "f.id")}` +
    `RETURN f.id AS id, f.created_at AS created_at, f.written_by AS written_by, f.session_id AS session_id, ` +
    `${parentIdOf("f")} AS parent_id, ${alsoOnOf("f")} AS also_on, f.content AS content, ` +
    `f.kind AS fact_kind, f.contradicts AS contradicts`,
  decision: `${afterPosition("MATCH (w)-[r:SUPERSEDES]->(l)", "w, r, l", "r.created_at", "w.id + ' ' + l.id")}` +
    `RETURN r.created_at AS created_at, w.id AS winner_id, l.id AS loser_id, r.resolved_by AS resolved_by, r.reason AS reason`,
  // Typed: the COMPATIBLE index (graphIndexes.ts) makes the type exist before any query is planned.
  compatible: `${afterPosition("MATCH (x)-[r:COMPATIBLE]->(y)", "x, r, y", "r.created_at", "x.id + ' ' + y.id")}` +
    `RETURN r.created_at AS created_at, [x.id, y.id] AS fact_ids, r.resolved_by AS resolved_by, r.reason AS reason`,
  retraction: `${afterPosition("MATCH (r)-[t:RETRACTS]->(f)", "r, t, f", "t.created_at", "r.id")}` +
    `RETURN r.id AS id, t.created_at AS created_at, f.id AS fact_id, r.retracted_by AS retracted_by, r.reason AS reason`,
  confirmation: `${afterPosition("MATCH (c)-[k:CONFIRMS]->(f)", "c, k, f", "k.created_at", "c.id")}` +
    `RETURN c.id AS id, k.created_at AS created_at, f.id AS fact_id, c.confirmed_by AS confirmed_by, c.reason AS reason`,
  // A claim is not carried (memoryRecord.ts, TaskRecord): a claimed task is written as open.
  task: `${afterPosition("MATCH (t:Task)", "t", "t.created_at", "t.id")}${withState("t")}` +
    `RETURN t.id AS id, t.created_at AS created_at, t.written_by AS written_by, t.title AS title, ` +
    `t.detail AS detail, ${aboutOf("t")} AS about, ` +
    `t.needs_approval AS needs_approval, t.max_attempts AS max_attempts, ` +
    `CASE t_s.status WHEN 'claimed' THEN 'open' ELSE t_s.status END AS status, t_s.attempts AS attempts, ` +
    `t_s.decided_by AS decided_by, t_s.decided_at AS decided_at, t_s.last_outcome AS outcome, ` +
    `t_s.last_note AS note, ${finisher("t_s")} AS finisher, t_s.finished_at AS finished_at, ` +
    `t.procedure_id AS procedure_id`,
  task_note: `${afterPosition("MATCH (n:TaskNote)", "n", "n.created_at", "n.id")}` +
    `RETURN n.id AS id, n.created_at AS created_at, n.task_id AS task_id, n.outcome AS outcome, ` +
    `n.note AS note, n.by AS by`,
  run: `${afterPosition("MATCH (r:Run)", "r", "r.created_at", "r.id")}` +
    `RETURN r.id AS id, r.created_at AS created_at, r.procedure_id AS procedure_id, r.outcome AS outcome, ` +
    `r.failed_step AS failed_step, r.note AS note, r.ran_by AS ran_by, r.task_id AS task_id`
}

/**
 * The procedures of a page of facts with their parts (Step nodes through each one's STEP edges, at
 * most what one procedure holds): one statement a page, only when the page has a procedure.
 */
const procedurePartsQuery = `UNWIND $ids AS pid MATCH (p:Fact {id: pid}) ` +
  `RETURN p.id AS id, coalesce(p.version, 1) AS version, coalesce(p.lineage, []) AS lineage, ` +
  `[(p)-[:STEP]->(p_s:Step) | [p_s.part, p_s.i, p_s.text]] AS steps`
const ProcedurePartsRow = Schema.Struct({
  id: Schema.String,
  version: Schema.Number,
  lineage: Schema.Array(Schema.String),
  steps: Schema.Array(Schema.Tuple(Schema.String, Schema.Number, Schema.String))
})

const withProcedureParts = (db: GraphDatabase["Type"], facts: Array<FactRecord>) => {
  const ids = facts.flatMap((f) => (f.fact_kind === "procedure" ? [f.id] : []))
  if (ids.length === 0) return Effect.succeed(facts)
  return db.read(procedurePartsQuery, { ids }, ProcedurePartsRow).pipe(
    Effect.map((rows) => {
      const parts = new Map(rows.map((r) => [r.id, r]))
      return facts.map((f): FactRecord => {
        const p = parts.get(f.id)
        return p === undefined ? f : {
          ...f,
          procedure: {
            version: p.version,
            lineage: p.lineage,
            preconditions: ordered(p.steps, "pre"),
            steps: ordered(p.steps, "step")
          }
        }
      })
    })
  )
}

const rowSchemas = {
  fact: Schema.Struct({
    id: Schema.String,
    created_at: Stamp,
    written_by: Schema.String,
    session_id: Schema.String,
    parent_id: Schema.NullOr(Schema.String),
    also_on: Schema.NullOr(Schema.Array(Schema.String)),
    content: Schema.String,
    fact_kind: Schema.NullOr(StoredKindSchema),
    contradicts: Schema.NullOr(Schema.Array(Schema.String))
  }),
  decision: Schema.Struct({
    created_at: Stamp,
    winner_id: Schema.String,
    loser_id: Schema.String,
    resolved_by: Schema.String,
    reason: Schema.String
  }),
  compatible: Schema.Struct({
    created_at: Stamp,
    fact_ids: Schema.Tuple(Schema.String, Schema.String),
    resolved_by: Schema.String,
    reason: Schema.String
  }),
  retraction: Schema.Struct({
    id: Schema.String,
    created_at: Stamp,
    fact_id: Schema.String,
    retracted_by: Schema.String,
    reason: Schema.String
  }),
  confirmation: Schema.Struct({
    id: Schema.String,
    created_at: Stamp,
    fact_id: Schema.String,
    confirmed_by: Schema.String,
    reason: Schema.String
  }),
  task: Schema.Struct({
    id: Schema.String,
    created_at: Stamp,
    written_by: Schema.String,
    title: Schema.String,
    detail: Schema.NullOr(Schema.String),
    about: Schema.Array(Schema.String),
    needs_approval: Schema.Boolean,
    max_attempts: Schema.Number,
    status: Schema.Literal("open", "done", "failed", "awaiting_approval", "rejected"),
    attempts: Schema.Number,
    decided_by: Schema.NullOr(Schema.String),
    decided_at: Schema.NullOr(Stamp),
    outcome: Schema.NullOr(Schema.Literal("done", "failed", "released")),
    note: Schema.NullOr(Schema.String),
    finisher: Schema.NullOr(Schema.String),
    finished_at: Schema.NullOr(Stamp),
    procedure_id: Schema.NullOr(Schema.String)
  }),
  task_note: Schema.Struct({
    id: Schema.String,
    created_at: Stamp,
    task_id: Schema.String,
    outcome: Schema.Literal("done", "failed", "released"),
    note: Schema.NullOr(Schema.String),
    by: Schema.String
  }),
  run: Schema.Struct({
    id: Schema.String,
    created_at: Stamp,
    procedure_id: Schema.String,
    outcome: Schema.Literal("success", "failure"),
    failed_step: Schema.NullOr(Schema.Number),
    note: Schema.NullOr(Schema.String),
    ran_by: Schema.String,
    task_id: Schema.NullOr(Schema.String)
  })
}

const kindIndex = (kind: Kind) => kindOrder[kind]

/** The key to pass for `kind`: records of that kind at the position's stamp come after it. */
const keyAfter = (kind: Kind, at: Position): string =>
  kindIndex(kind) < at.kind ? "\uffff" : kindIndex(kind) > at.kind ? "" : at.key

const readKind = (
  db: GraphDatabase["Type"],
  kind: Kind,
  at: Position,
  size: number
): Effect.Effect<ReadonlyArray<MemoryRecord>, DatabaseError> => {
  const params = { stamp: at.stamp, key: keyAfter(kind, at), limit: size }
  switch (kind) {
    case "fact":
      return db.read(queries.fact, params, rowSchemas.fact).pipe(
        Effect.map((rows) =>
          rows.map(({ also_on, contradicts, fact_kind, ...r }): FactRecord => ({
            kind: "fact",
            ...r,
            created_at: toIso(r.created_at),
            ...(also_on === null ? {} : { also_on }),
            ...(fact_kind === null ? {} : { fact_kind }),
            ...(contradicts === null ? {} : { contradicts })
          }))
        ),
        Effect.flatMap((facts) => withProcedureParts(db, facts))
      )
    case "decision":
      return db.read(queries.decision, params, rowSchemas.decision).pipe(
        Effect.map((rows) =>
          rows.map((r): DecisionRecord => ({ kind: "decision", ...r, created_at: toIso(r.created_at) }))
        )
      )
    case "compatible":
      return db.read(queries.compatible, params, rowSchemas.compatible).pipe(
        Effect.map((rows) =>
          rows.map((r): CompatibleRecord => ({ kind: "compatible", ...r, created_at: toIso(r.created_at) }))
        )
      )
    case "retraction":
      return db.read(queries.retraction, params, rowSchemas.retraction).pipe(
        Effect.map((rows) =>
          rows.map((r): RetractionRecord => ({ kind: "retraction", ...r, created_at: toIso(r.created_at) }))
        )
      )
    case "confirmation":
      return db.read(queries.confirmation, params, rowSchemas.confirmation).pipe(
        Effect.map((rows) =>
          rows.map((r): ConfirmationRecord => ({ kind: "confirmation", ...r, created_at: toIso(r.created_at) }))
        )
      )
    case "task":
      return db.read(queries.task, params, rowSchemas.task).pipe(
        Effect.map((rows) =>
          rows.map(({ finished_at, finisher, note, outcome, procedure_id, ...r }): TaskRecord => ({
            kind: "task",
            ...r,
            about: [...r.about].sort(),
            created_at: toIso(r.created_at),
            decided_at: r.decided_at === null ? null : toIso(r.decided_at),
            last_finish: outcome === null || finished_at === null || finisher === null ? null : {
              outcome,
              note,
              by: finisher,
              created_at: toIso(finished_at)
            },
            ...(procedure_id === null ? {} : { procedure_id })
          }))
        )
      )
    case "task_note":
      return db.read(queries.task_note, params, rowSchemas.task_note).pipe(
        Effect.map((rows) =>
          rows.map((r): TaskNoteRecord => ({ kind: "task_note", ...r, created_at: toIso(r.created_at) }))
        )
      )
    case "run":
      return db.read(queries.run, params, rowSchemas.run).pipe(
        Effect.map((rows) => rows.map((r): RunRecord => ({ kind: "run", ...r, created_at: toIso(r.created_at) })))
      )
  }
}

export const startPosition: Position = { stamp: -8.64e15, kind: -1, key: "" }

/** The next `size` records of these kinds after `at`, in write order (the studio's live events read the facts' kinds). */
export const recordsAfter = (
  db: GraphDatabase["Type"],
  at: Position,
  size = pageSize,
  kinds: ReadonlyArray<Kind> = factKinds
): Effect.Effect<Array<MemoryRecord>, DatabaseError> =>
  Effect.forEach(kinds, (kind: Kind) => readKind(db, kind, at, size)).pipe(
    Effect.map((pages) => pages.flat().sort(compareRecords).slice(0, size))
  )

/** Every record of the graph, in write order. */
export const exportRecords = (db: GraphDatabase["Type"]): Stream.Stream<MemoryRecord, DatabaseError> =>
  Stream.paginateEffect(startPosition, (at) =>
    recordsAfter(db, at, pageSize, allKinds).pipe(
      Effect.map((records) => {
        const last = records[records.length - 1]
        const next: Option.Option<Position> = last === undefined || records.length < pageSize
          ? Option.none()
          : Option.some(positionOf(last))
        return [records, next] as const
      })
    )).pipe(Stream.flattenIterables)
