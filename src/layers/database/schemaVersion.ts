import { Effect, Schema } from "effect"
import { DatabaseError } from "../../domain/errors.js"
import type { GraphDatabaseShape } from "../../services/GraphDatabase.js"
import { neverStale } from "../factStore/staleness.js"

import { randomUUID } from "node:crypto"
import { buildClusters } from "../factStore/clusterMigration.js"
import { relinkForks } from "../factStore/forkRule.js"
import { rewindForks } from "../factStore/forkWindow.js"
import { materialise } from "../factStore/rankGenerations.js"
import { recountRuns } from "../procedures/runCounts.js"
import { moveTaskState } from "../tasks/moveTaskState.js"
import { countTasks } from "../tasks/taskCounts.js"
import { schemaVersion } from "./version.js"

export { schemaVersion }

/** What the schema check leaves a graph as: written to (null), or only read: the newer version it found. */
export type GraphAccess = number | null

export const newerSchema = (found: number) =>
  new DatabaseError({
    reason: "newer_schema",
    detail: `the graph is at schema ${found}; this Relay knows ${schemaVersion}`
  })

/** Facts one migration statement reads or writes: each statement's own work stays bounded. */
export const migrationBatch = 10_000

const VersionRow = Schema.Struct({ schema: Schema.Unknown })
const versionQuery = `OPTIONAL MATCH (clk:RelayClock {id: 0}) RETURN clk.schema AS schema`

const TopRow = Schema.Struct({ top: Schema.NullOr(Schema.Number) })
const topQuery = `MATCH (f:Fact) RETURN max(id(f)) AS top`

const EmptyRow = Schema.Struct({ empty: Schema.Boolean })
const emptyQuery = `OPTIONAL MATCH (n) WITH n LIMIT 1 RETURN n IS NULL AS empty`

/**
 * A range of node ids: each fact with its parent, what it stores, and the first decision or
 * retraction on it (the inputs of domain/model/stored.ts's rule; an edge without a stamp counts
 * for nothing, as inheritedStale reads it).
 */
const readQuery = `MATCH (f:Fact) WHERE id(f) >= $lo AND id(f) < $hi ` +
  `RETURN id(f) AS node, f.stale_at AS stored, ` +
  `head([(f)-[:BUILDS_ON]->(f_up) | id(f_up)]) AS parent, ` +
  `reduce(m = ${neverStale}, t IN [(f)<-[f_t:SUPERSEDES|RETRACTS]-() | f_t.created_at] | ` +
  `CASE WHEN t < m THEN t ELSE m END) AS invalidated`

const FactRow = Schema.Struct({
  node: Schema.Number,
  stored: Schema.NullOr(Schema.Number),
  parent: Schema.NullOr(Schema.Number),
  invalidated: Schema.Number
})

/**
 * Writes the stamps computed, each only down (a write of this version since the read may have
 * lowered it already). The id is bound to a plain variable first: `id(f) = r[0]` made FalkorDB 4.16
 * scan every node per row instead of seeking (as pageFacts.ts found).
 */
const writeQuery = `UNWIND $rows AS r WITH r[0] AS node, r[1] AS s MATCH (f) WHERE id(f) = node ` +
  `WITH f, s WHERE f.stale_at IS NULL OR f.stale_at > s SET f.stale_at = s`

/** Only up: a newer Relay that migrated the graph meanwhile keeps its version, and is answered. */
const doneQuery = `MERGE (clk:RelayClock {id: 0}) WITH clk WHERE coalesce(clk.schema, 0) < $schema ` +
  `SET clk.schema = $schema ` +
  `WITH count(*) AS set MATCH (clk:RelayClock {id: 0}) RETURN clk.schema AS schema`

/** Every fact's inputs by node id (typed arrays: some 28 bytes a node id while the migration runs). */
export interface FactTable {
  /** -1: a root (or not a fact). */
  readonly parent: Int32Array
  /** NaN: none stored. */
  readonly stored: Float64Array
  readonly invalidated: Float64Array
  readonly isFact: Uint8Array
}

export const factTable = (top: number): FactTable => ({
  parent: new Int32Array(top + 1).fill(-1),
  stored: new Float64Array(top + 1).fill(Number.NaN),
  invalidated: new Float64Array(top + 1).fill(neverStale),
  isFact: new Uint8Array(top + 1)
})

/**
 * Each fact's stamp by the model's rule: its parent's stamp or the parent's first decision or
 * retraction, whichever is earlier; a root's (or a fact under a node that is no fact) never. Each
 * chain is followed up to the first fact already done, then filled in on the way down, so every
 * fact is computed once whatever the stamps say (a stamp written by hand, a merge's order).
 */
export const stampsOf = (t: FactTable): Float64Array => {
  const stamp = new Float64Array(t.parent.length).fill(Number.NaN)
  const onPath = new Uint8Array(t.parent.length)
  const path: Array<number> = []
  for (let node = 0; node < t.parent.length; node++) {
    if (t.isFact[node] === 0 || !Number.isNaN(stamp[node]!)) continue
    let at = node
    // Up to a root, a done fact, or a cycle (none in a graph Relay wrote; broken at the repeat).
    while (t.isFact[at] === 1 && Number.isNaN(stamp[at]!) && onPath[at] === 0) {
      path.push(at)
      onPath[at] = 1
      const up = t.parent[at]!
      if (up < 0) break
      at = up
    }
    for (let k = path.length - 1; k >= 0; k--) {
      const f = path[k]!
      const up = t.parent[f]!
      onPath[f] = 0
      stamp[f] = up < 0 || t.isFact[up] !== 1 || Number.isNaN(stamp[up]!)
        ? neverStale
        : Math.min(stamp[up]!, t.invalidated[up]!)
    }
    path.length = 0
  }
  return stamp
}

/**
 * Brings an older graph to `schemaVersion`: reads every fact's inputs in statements of
 * `migrationBatch` node ids, computes every stamp here, and writes those that differ in statements
 * of `migrationBatch` facts. No statement's work grows with a subtree or the graph. It only lowers
 * stamps (or fills missing ones), so it is idempotent, can stop anywhere and run again, and two
 * processes migrating at once agree. Memory: the FactTable, ~28 bytes a node id, while it runs.
 */
export const migrate = Effect.fn("relay/graph/migrate")(function*(db: Pick<GraphDatabaseShape, "read" | "write">) {
  const found = (yield* db.read(versionQuery, {}, VersionRow))[0]?.schema ?? null
  if (found === schemaVersion) return null satisfies GraphAccess
  // A version this Relay cannot read as a number is no version it knows: read, never written.
  if (found !== null && (typeof found !== "number" || found > schemaVersion)) {
    return (typeof found === "number" ? found : Number.NaN) satisfies GraphAccess
  }
  // A replica refuses any write at once: before reading the whole graph, not after.
  yield* db.write("RETURN 1")
  // From 2 on the stamps are there: the clock's edge is made by the first write (clock.ts), and the
  // forks' windows are made from their edges (below).
  const top = found !== null && found >= 2 ? null : (yield* db.read(topQuery, {}, TopRow))[0]?.top ?? null
  if (top !== null) {
    yield* Effect.logInfo("migrating the memory to its stored form").pipe(
      Effect.annotateLogs({ from: found ?? 1, to: schemaVersion })
    )
    const table = factTable(top)
    for (let lo = 0; lo <= top; lo += migrationBatch) {
      for (const r of yield* db.read(readQuery, { lo, hi: lo + migrationBatch }, FactRow)) {
        table.isFact[r.node] = 1
        table.parent[r.node] = r.parent ?? -1
        table.stored[r.node] = r.stored ?? Number.NaN
        table.invalidated[r.node] = r.invalidated
      }
    }
    const stamps = stampsOf(table)
    let batch: Array<readonly [number, number]> = []
    for (let node = 0; node <= top; node++) {
      const s = stamps[node]!
      const stored = table.stored[node]!
      if (table.isFact[node] === 1 && (Number.isNaN(stored) || stored > s)) batch.push([node, s])
      if (batch.length === migrationBatch || (node === top && batch.length > 0)) {
        yield* db.write(writeQuery, { rows: batch })
        batch = []
      }
    }
  }
  // A new graph has nothing to migrate, and a write that changes nothing must not name properties
  // the graph has not seen: FalkorDB 4.16 adds them to the graph but sends no such write to its
  // append-only file or replicas, so a later write replicated as effects names them by ids that
  // mean something else there (database/effectsReplication.ts).
  const empty = found === null && (yield* db.read(emptyQuery, {}, EmptyRow))[0]?.empty === true
  if (!empty) {
    // Schema 7's fork rule (domain/model/conflicts.ts): the pairs with a choice in them become FORKS
    // edges, then every window is set again from the edges (a window of schema 4 on is one too).
    if (found === null || found < 7) {
      yield* relinkForks(db)
      yield* rewindForks(db)
    }
    // Before the recount, which reads each task's status from its STATE edge.
    if (found === null || found < 6) yield* moveTaskState(db, migrationBatch)
    if (found === null || found < 5) yield* countTasks(db)
    // Schema 8 needs nothing of 7: it reads only facts, their edges and the ForkMarks.
    if (found === null || found < 8) {
      yield* buildClusters(db)
      yield* materialise(db, { me: randomUUID(), force: true })
    } else if (found < 10) {
      // Schema 10: each cluster's oldest facts as [stamp, id] pairs, its loops written again from the edges.
      yield* buildClusters(db, "loops")
    }
    // Schema 9: each procedure's counts from its runs (none before 9: it sets what a graph holds).
    if (found === null || found < 9) yield* recountRuns(db, true)
  }
  const now = (yield* db.write(doneQuery, { schema: schemaVersion }, VersionRow))[0]?.schema ?? schemaVersion
  // A newer Relay migrated it meanwhile: from now on read only.
  return (typeof now === "number" && now > schemaVersion ? now : null) satisfies GraphAccess
})
