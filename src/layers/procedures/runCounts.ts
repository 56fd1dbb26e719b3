import { Effect, Schema } from "effect"
import type { GraphDatabaseShape } from "../../services/GraphDatabase.js"
import type { RunCountDrift } from "../../services/StoreCheck.js"

/** Procedures a recount statement reads (each with all its runs). */
const recountBatch = 1_000

type Db = Pick<GraphDatabaseShape, "read" | "write">

/**
 * Each procedure of a node-id range with its stored counts and its Run nodes counted (what the
 * domain model's `recount` says): check-db --verify compares them, and schema 9's migration sets them.
 */
const recountQuery = `MATCH (p:Fact) WHERE id(p) >= $lo AND id(p) < $hi AND p.kind = 'procedure' ` +
  `WITH p, [(p)<-[:RAN]-(p_r:Run) | p_r.outcome] AS outcomes ` +
  `RETURN p.id AS id, p.runs_ok AS ok, p.runs_failed AS failed, ` +
  `size([o IN outcomes WHERE o = 'success']) AS success, size([o IN outcomes WHERE o = 'failure']) AS failure`

const RecountRow = Schema.Struct({
  id: Schema.String,
  ok: Schema.NullOr(Schema.Number),
  failed: Schema.NullOr(Schema.Number),
  success: Schema.Number,
  failure: Schema.Number
})

const fixQuery = `UNWIND $rows AS r MATCH (p:Fact {id: r[0]}) SET p.runs_ok = r[1], p.runs_failed = r[2]`

const TopRow = Schema.Struct({ top: Schema.NullOr(Schema.Number) })

/** A procedure whose stored counts a recount of its runs does not give. */

/**
 * Every procedure's counts against its runs, in statements of `recountBatch` node ids; with `fix`,
 * the drifted ones are set to the recount (schema 9's migration; idempotent, so a run that stopped
 * part way is made good by the next). Answers the drifted (before any fix) and how many procedures.
 */
export const recountRuns = Effect.fn("relay/procedures/recountRuns")(function*(db: Db, fix: boolean) {
  const top = (yield* db.read("MATCH (f:Fact) RETURN max(id(f)) AS top", {}, TopRow))[0]?.top ?? null
  const drifted: Array<RunCountDrift> = []
  let procedures = 0
  for (let lo = 0; top !== null && lo <= top; lo += recountBatch) {
    const rows = yield* db.read(recountQuery, { lo, hi: lo + recountBatch }, RecountRow)
    procedures += rows.length
    const bad = rows.filter((r) => r.ok !== r.success || r.failed !== r.failure)
    drifted.push(
      ...bad.map((r) => ({ id: r.id, stored: [r.ok, r.failed] as const, counted: [r.success, r.failure] as const }))
    )
    if (fix && bad.length > 0) yield* db.write(fixQuery, { rows: bad.map((r) => [r.id, r.success, r.failure]) })
  }
  return { procedures, drifted }
})
