import { Effect, Schema } from "effect"
import { entrySets, mergePlaces } from "../../domain/batchEntry.js"
import { storedText } from "../../domain/contentKey.js"
import type {
  CompatibleRecord,
  ConfirmationRecord,
  DecisionRecord,
  FactRecord,
  MemoryRecord,
  RetractionRecord,
  TaskNoteRecord,
  TaskRecord
} from "../../domain/memoryRecord.js"
import { termsOf } from "../../domain/terms.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { clockRead, clockSetQuery } from "../database/clock.js"
import { relatedClause } from "../factStore/buildsOn.js"
import { textBytes } from "../factStore/capacity.js"
import { buildClusters } from "../factStore/clusterMigration.js"
import { confirmable, confirmGate, createConfirmation, recomputeBelow, specialsBelow } from "../factStore/confirm.js"
import { neverClosed, notOpen, rewindForks } from "../factStore/forkWindow.js"
import { inheritedStale, markDependents, neverStale } from "../factStore/staleness.js"
import { addTermCountsParams, addTermCountsQuery } from "../factStore/termCounts.js"
import { hubsOf, throughMerges } from "../factStore/walkDown.js"
import { moveCount } from "../tasks/taskCounts.js"
import { queueNode, taskById } from "../tasks/taskMap.js"

/**
 * Writes checked records (domain/importCheck.ts) into the graph, keeping ids and created_at and
 * deriving everything else again: a fact's normalised content, its fork mark, and its stored
 * staleness (a decision or retraction marks the dependents already imported, a fact inherits it). Tasks keep the state the file gives them; open ones join the
 * queue's tail in the order they last entered a queue. Runs of facts go in batches (one statement creates the nodes, then
 * links their parents); each decision, compatible record and retraction is one statement that
 * checks its rule against the graph as it stands, so a merge never writes what the rules refuse.
 * Facts already in the graph by id are skipped, as are edges already there.
 */
export const factBatchSize = 500

export interface ImportCounts {
  facts: number
  decisions: number
  compatible: number
  retractions: number
  confirmations: number
  tasks: number
  task_notes: number
  /** Records already in the graph (merge), left as they are. */
  skipped: number
  /** Records a rule refused against the graph's own edges (merge), by line: left out. */
  refused: Array<{ readonly line: number; readonly rule: string }>
}

/**
 * New facts in one statement: nodes first, then (after the aggregation, which ends the CREATE) the
 * BUILDS_ON edges, whose parents may be in the same batch, then the ALSO_ON edges of a fact on
 * several, in the order the file names them.
 */
const createFacts = `UNWIND $rows AS r ` +
  `CREATE (:Fact {id: r.id, content: r.content, norm: r.norm, hash: r.hash, written_by: r.written_by, ` +
  `session_id: r.session_id, kind: r.kind, created_at: r.created_at, terms: r.terms, stale_at: ${neverStale}, ` +
  `merge_of: r.merge_of, merge_depth: r.merge_depth}) ` +
  `WITH count(*) AS made ` +
  `UNWIND $rows AS r WITH r WHERE r.parent_id IS NOT NULL ` +
  `MATCH (f:Fact {id: r.id}), (p:Fact {id: r.parent_id}) CREATE (f)-[:BUILDS_ON]->(p) ` +
  `WITH count(*) AS linked ` +
  `UNWIND $also AS a MATCH (f:Fact {id: a[0]}), (q:Fact {id: a[1]}) CREATE (f)-[:ALSO_ON]->(q) ` +
  // Stale from when the earliest of its nearest ancestors outside the batch is (domain/batchEntry.ts,
  // staleness.ts).
  `WITH count(*) AS alsoLinked ` +
  `UNWIND $entries AS en MATCH (f:Fact {id: en[0]}), (e0:Fact {id: en[1][0]}) ` +
  `UNWIND en[1] AS eid MATCH (e:Fact {id: eid}) WITH f, e0, ${inheritedStale("e")} AS st ` +
  // And the spans a confirmation closed above its first parent's line: a fact merged in with an
  // older stamp was stale then too.
  `WITH f, e0, min(st) AS st SET f.stale_at = st, f.stale_spans = e0.stale_spans`

/** The nearest merge and merge depth of facts already stored, for the batch's facts on them. */
const mergePlacesQuery = `UNWIND $ids AS id MATCH (f:Fact {id: id}) ` +
  `RETURN f.id AS id, f.merge_of AS merge_of, coalesce(f.merge_depth, 0) AS depth`
const MergePlaceRow = Schema.Struct({ id: Schema.String, merge_of: Schema.NullOr(Schema.String), depth: Schema.Number })

/** The graph's capacity counts (layers/factStore/capacity.ts) take in what an import adds; the operator's import is not refused. */
const countFacts = clockSetQuery({ facts: "coalesce(clk.facts, 0) + $facts", bytes: "coalesce(clk.bytes, 0) + $bytes" })

/**
 * A parent is marked a fork as a save marks it (saveFact.ts): when a new child says something else
 * than a sibling saved before it that was not retracted then, details left out (a detail disagrees
 * with nothing). Retractions are written in file order between the batches of facts, so the ones in
 * the graph now are exactly those stamped before this batch. A merge adds children before ones the
 * graph holds, so a pair counts when either side is new. In time order, a new child has an earlier
 * differing sibling iff it comes at or after the first child whose text differs from the first's,
 * and a later one iff it comes at or before the last child whose text differs from the last's: one
 * pass per parent, never a pairing of siblings. (A revision's save also leaves out the fact it supersedes;
 * here it counts, so an imported revision of a sibling may mark a parent its save did not. The mark
 * only says where the conflicts read starts: what is open is the same.)
 */
const markForks = `UNWIND $parents AS pid MATCH (p:Fact {id: pid}) ` +
  `MATCH (p)<-[:BUILDS_ON|ALSO_ON]-(c:Fact) WHERE coalesce(c.kind, '') <> 'detail' AND indegree(c, 'RETRACTS') = 0 ` +
  `WITH p, c ORDER BY c.created_at, c.id ` +
  `WITH p, collect(c.norm) AS norms, collect(c.id IN $ids) AS fresh ` +
  `WITH p, norms, fresh, [i IN range(0, size(norms) - 1) WHERE norms[i] <> norms[0]] AS off, ` +
  `[i IN range(0, size(norms) - 1) WHERE norms[i] <> norms[size(norms) - 1]] AS back ` +
  `WHERE size(off) > 0 AND ` +
  `any(i IN range(0, size(norms) - 1) WHERE fresh[i] AND (i >= off[0] OR i <= back[size(back) - 1])) ` +
  // Open since forever (an existing window too, closed or not) until rewindForks reads every window
  // from the edges: a conflict the batch opens under a parent decided before is never hidden meanwhile,
  // nor when the import stops before its end.
  `MERGE (:ForkMark)-[m:MARKS]->(p) SET m.opened = CASE WHEN coalesce(m.opened, ${notOpen}) < ${notOpen} ` +
  `THEN m.opened ELSE 0 END, m.closed = coalesce(m.closed, ${neverClosed})`

const existingIds = `UNWIND $ids AS id MATCH (f:Fact {id: id}) RETURN f.id AS id`

/**
 * In a merge, a decision or retraction older than a confirmation below its fact would lower stamps
 * that confirmation raised (markDependents only lowers): such a record is left out and reported,
 * `before_confirmation`. (In a fresh graph records come in stamp order: no confirmation is newer.)
 */
const shieldedBelow = (x: string, carry: ReadonlyArray<string>) => {
  const kept = [...carry, x]
  // Everything below, through extra parents too (walkDown.ts): markDependents reaches it all.
  return `WITH ${kept.join(", ")}, CASE WHEN $merge THEN ${x} END AS ${x}_top ` +
    `OPTIONAL MATCH (${x}_top)<-[:BUILDS_ON*1..]-(${x}_shD) ` +
    `WITH ${kept.join(", ")}, ${x}_top, collect(${x}_shD) AS ${x}_shTree, ${hubsOf(`${x}_shD`)} + ` +
    `CASE WHEN ${x}_top IS NOT NULL AND indegree(${x}_top, 'ALSO_ON') > 0 THEN [${x}_top] ELSE [] END AS ${x}_shHubs ` +
    throughMerges(`${x}_shHubs`, `${x}_shMore`, [...kept, `${x}_shTree`]) +
    `UNWIND CASE WHEN size(${x}_shTree) + size(${x}_shMore) = 0 THEN [null] ELSE ${x}_shTree + ${x}_shMore END AS ${x}_c ` +
    // The stamp is tested in the count: a WHERE on the edge of an OPTIONAL MATCH from null crashes FalkorDB 4.16.
    `OPTIONAL MATCH (${x}_c)<-[${x}_k:CONFIRMS]-() ` +
    `WITH ${kept.join(", ")}, count(CASE WHEN ${x}_k.created_at > $createdAt THEN 1 END) > 0 AS shielded `
}

export const decisionQuery = `MATCH (w:Fact {id: $winnerId}), (l:Fact {id: $loserId}) ` +
  `WITH w, l, size([(w)-[:SUPERSEDES]->(l) | 1]) > 0 AS existing, ` +
  `shortestPath((l)-[:SUPERSEDES*]->(w)) IS NOT NULL AS cycle ` +
  relatedClause(["w", "l", "existing", "cycle"]) +
  shieldedBelow("l", ["w", "existing", "cycle", "related"]) +
  `WITH w, l, existing, cycle, related, shielded, NOT existing AND NOT cycle AND NOT related AND NOT shielded AS write ` +
  `FOREACH (_ IN CASE WHEN write THEN [1] ELSE [] END | ` +
  `CREATE (w)-[:SUPERSEDES {reason: $reason, resolved_by: $resolvedBy, created_at: $createdAt}]->(l)) ` +
  `WITH l, existing, cycle, related, shielded, CASE WHEN write THEN $createdAt END AS at ` +
  markDependents("l", "at", ["existing", "cycle", "related", "shielded"]) +
  `RETURN existing, CASE WHEN cycle THEN 'supersedes_cycle' WHEN related THEN 'builds_on_each_other' ` +
  `WHEN shielded THEN 'before_confirmation' END AS rule`

const compatibleQuery = `MATCH (x:Fact {id: $x}), (y:Fact {id: $y}) ` +
  `WITH x, y, size([(x)-[x_e]->(y) WHERE type(x_e) = 'COMPATIBLE' | 1]) > 0 AS existing, ` +
  // Every parent, first and extra (builds_on): siblings share one (compatible.ts).
  `[(x)-[x_pe]->(x_parent) WHERE type(x_pe) IN ['BUILDS_ON', 'ALSO_ON'] | id(x_parent)] AS xParents, ` +
  `[(y)-[y_pe]->(y_parent) WHERE type(y_pe) IN ['BUILDS_ON', 'ALSO_ON'] | id(y_parent)] AS yParents, ` +
  `shortestPath((x)-[:SUPERSEDES*]->(y)) IS NOT NULL OR shortestPath((y)-[:SUPERSEDES*]->(x)) IS NOT NULL AS decided ` +
  `WITH x, y, existing, decided, any(x_p IN xParents WHERE x_p IN yParents) AS siblings ` +
  `FOREACH (_ IN CASE WHEN NOT existing AND siblings AND NOT decided THEN [1] ELSE [] END | ` +
  `CREATE (x)-[:COMPATIBLE {reason: $reason, resolved_by: $resolvedBy, created_at: $createdAt}]->(y)) ` +
  `RETURN existing, CASE WHEN NOT siblings THEN 'not_siblings' WHEN decided THEN 'already_superseded' END AS rule`

export const retractionQuery = `MATCH (f:Fact {id: $factId}) ` +
  `WITH f, indegree(f, 'RETRACTS') > 0 AS existing ` +
  shieldedBelow("f", ["existing"]) +
  `FOREACH (_ IN CASE WHEN existing OR shielded THEN [] ELSE [1] END | ` +
  `CREATE (:Retraction {id: $id, reason: $reason, retracted_by: $retractedBy, created_at: $createdAt})` +
  `-[:RETRACTS {created_at: $createdAt}]->(f)) ` +
  `WITH f, existing, shielded, CASE WHEN existing OR shielded THEN NULL ELSE $createdAt END AS at ` +
  markDependents("f", "at", ["existing", "shielded"]) +
  `RETURN existing, CASE WHEN shielded AND NOT existing THEN 'before_confirmation' END AS rule`

/**
 * A confirmation raises the stored stamps below its fact as they stand when it is written
 * (confirm.ts), so it is replayed only in stamp order: into a fresh graph always (records come in
 * write order), into a merge only when nothing in the graph is stamped after it.
 */
const confirmationQuery = `MATCH (f:Fact {id: $factId}) ${clockRead(["f"])}` +
  `WITH f, clk.last AS last, size([(f)<-[:CONFIRMS]-(f_old:Confirmation {id: $id}) | 1]) > 0 AS existing ` +
  `WITH f, existing, ${confirmable("f")} AS allowed, NOT $merge OR last IS NULL OR last < $createdAt AS inOrder ` +
  `WITH f, existing, allowed, inOrder, CASE WHEN NOT existing AND allowed AND inOrder THEN f END AS top ` +
  specialsBelow(["f", "existing", "allowed", "inOrder", "top"]) +
  `WITH f, existing, allowed, inOrder, inside, $createdAt AS ts, ` +
  confirmGate +
  createConfirmation("$id", "$confirmedBy", "$reason") +
  recomputeBelow(["existing", "allowed", "inOrder", "tooMany", "inside"]) +
  `RETURN existing, CASE WHEN existing OR make THEN null WHEN NOT inOrder THEN 'confirmation_before_graph' ` +
  `WHEN tooMany THEN 'too_many' ELSE 'not_stale' END AS rule`

/**
 * A task as the file says it stands (memoryRecord.ts, TaskRecord), with its ABOUT edges; its place
 * in the queue comes after (queueTasks). Its fence starts again: no claim was carried.
 */
const taskQuery = `OPTIONAL MATCH (old:Task {id: $id}) ` +
  `WITH old OPTIONAL MATCH (f:Fact) WHERE old IS NULL AND f.id IN $about ` +
  `WITH old, collect(f) AS facts ${queueNode} ` +
  `FOREACH (_ IN CASE WHEN old IS NULL THEN [1] ELSE [] END | SET ${moveCount("qt", "null", "$status")} ` +
  `CREATE (t:Task {id: $id, title: $title, detail: $detail, written_by: $writtenBy, created_at: $createdAt, ` +
  `needs_approval: $needsApproval, max_attempts: $maxAttempts})-[:STATE {status: $status, attempts: $attempts, ` +
  `fence: 0, decided_by: $decidedBy, decided_at: $decidedAt, holder: $finisher, finished_by: $finisher, ` +
  `last_outcome: $outcome, last_note: $note, finished_at: $finishedAt}]->(t) ` +
  `FOREACH (af IN facts | CREATE (t)-[:ABOUT {created_at: $createdAt}]->(af))) ` +
  `RETURN old IS NOT NULL AS existing, null AS rule`

const taskNoteQuery = `MATCH (t:Task {id: $taskId}) ` +
  `WITH t, size([(t)<-[:NOTE_ON]-(old:TaskNote {id: $id}) | 1]) > 0 AS existing ` +
  `FOREACH (_ IN CASE WHEN existing THEN [] ELSE [1] END | ` +
  `CREATE (:TaskNote {id: $id, task_id: $taskId, outcome: $outcome, note: $note, by: $by, fence: 0, ` +
  `created_at: $createdAt})-[:NOTE_ON {created_at: $createdAt}]->(t)) ` +
  `RETURN existing, null AS rule`

/** Open tasks join the queue's tail in the order given (the place is read before it is set). */
const queueTasks = `${queueNode} ` +
  `WITH qt, qt.tail AS base UNWIND range(0, size($ids) - 1) AS i ` +
  `${taskById("$ids[i]")}SET t_s.seq = base + 1 + i ` +
  `WITH qt, base, count(*) AS placed SET qt.tail = base + size($ids)`

/** When a task last entered a queue: posted, approved, or finished without being done. */
const queuedAt = (t: TaskRecord): string =>
  [t.created_at, t.decided_at ?? "", t.last_finish?.created_at ?? ""].reduce((a, b) => (a > b ? a : b))

/** The Relay clock moves past the newest stamp imported, so every later write is stamped after it. */
const moveClock = clockSetQuery({
  last: "CASE WHEN clk.last IS NULL OR clk.last < $newest THEN $newest ELSE clk.last END"
})

const Outcome = Schema.Struct({ existing: Schema.Boolean, rule: Schema.NullOr(Schema.String) })
const IdRow = Schema.Struct({ id: Schema.String })

const stamp = (iso: string) => Date.parse(iso)

const writeFacts = Effect.fn("relay/transfer/writeFacts")(
  function*(db: GraphDatabase["Type"], batch: ReadonlyArray<FactRecord>, counts: ImportCounts) {
    const there = new Set(
      (yield* db.read(existingIds, { ids: batch.map((f) => f.id) }, IdRow)).map((r) => r.id)
    )
    const fresh = batch.filter((f) => !there.has(f.id))
    counts.skipped += batch.length - fresh.length
    if (fresh.length === 0) return
    const withParents = fresh.map((f) => ({
      id: f.id,
      parents: f.parent_id === null ? [] : [f.parent_id, ...(f.also_on ?? [])]
    }))
    const inBatch = new Set(fresh.map((f) => f.id))
    const fromOutside = [...new Set(withParents.flatMap((f) => f.parents))].filter((id) => !inBatch.has(id))
    const outsidePlaces = new Map(
      fromOutside.length === 0 ? [] : (yield* db.read(mergePlacesQuery, { ids: fromOutside }, MergePlaceRow)).map((
        r
      ) => [r.id, { mergeOf: r.merge_of, depth: r.depth }])
    )
    const places = mergePlaces(withParents, outsidePlaces)
    const rows = fresh.map((f, k) => ({
      id: f.id,
      merge_of: places[k]!.mergeOf,
      merge_depth: places[k]!.depth === 0 ? null : places[k]!.depth,
      ...storedText(f.content),
      kind: f.fact_kind ?? null,
      written_by: f.written_by,
      session_id: f.session_id,
      created_at: stamp(f.created_at),
      parent_id: f.parent_id,
      terms: termsOf(f.content)
    }))
    const entries = entrySets(withParents)
    yield* db.write(createFacts, {
      rows,
      also: fresh.flatMap((f) => (f.also_on ?? []).map((q) => [f.id, q])),
      entries: fresh.flatMap((f, k): Array<[string, Array<string>]> =>
        entries[k]!.length === 0 ? [] : [[f.id, entries[k]!]]
      )
    })
    yield* db.write(countFacts, { facts: rows.length, bytes: rows.reduce((n, r) => n + textBytes(r.content), 0) })
    // Search's document counts, as a save keeps them (termCounts.ts).
    yield* db.write(addTermCountsQuery, addTermCountsParams(rows.map((r) => r.terms)))
    const parents = [...new Set(withParents.flatMap((f) => f.parents))]
    if (parents.length > 0) yield* db.write(markForks, { parents, ids: fresh.map((f) => f.id) })
    counts.facts += fresh.length
  }
)

const writeTask = (db: GraphDatabase["Type"], t: TaskRecord) =>
  db.write(taskQuery, {
    id: t.id,
    title: t.title,
    detail: t.detail,
    writtenBy: t.written_by,
    createdAt: stamp(t.created_at),
    about: [...t.about],
    status: t.status,
    needsApproval: t.needs_approval,
    maxAttempts: t.max_attempts,
    attempts: t.attempts,
    decidedBy: t.decided_by,
    decidedAt: t.decided_at === null ? null : stamp(t.decided_at),
    finisher: t.last_finish?.by ?? null,
    outcome: t.last_finish?.outcome ?? null,
    note: t.last_finish?.note ?? null,
    finishedAt: t.last_finish === null ? null : stamp(t.last_finish.created_at)
  }, Outcome)

const writeTaskNote = (db: GraphDatabase["Type"], n: TaskNoteRecord) =>
  db.write(taskNoteQuery, {
    id: n.id,
    taskId: n.task_id,
    outcome: n.outcome,
    note: n.note,
    by: n.by,
    createdAt: stamp(n.created_at)
  }, Outcome)

/** The count each kind of record adds to when it lands. */
const countOf = {
  decision: "decisions",
  compatible: "compatible",
  retraction: "retractions",
  confirmation: "confirmations",
  task: "tasks",
  task_note: "task_notes"
} as const

/** Writes one record other than a fact, and says whether it landed, was there already, or a rule refused it. */
const writeRecord = Effect.fn("relay/transfer/writeRecord")(
  function*(
    db: GraphDatabase["Type"],
    record: DecisionRecord | CompatibleRecord | RetractionRecord | ConfirmationRecord | TaskRecord | TaskNoteRecord,
    line: number,
    counts: ImportCounts,
    merge: boolean
  ) {
    const createdAt = stamp(record.created_at)
    const rows = record.kind === "task"
      ? yield* writeTask(db, record)
      : record.kind === "task_note"
      ? yield* writeTaskNote(db, record)
      : record.kind === "decision"
      ? yield* db.write(decisionQuery, {
        winnerId: record.winner_id,
        loserId: record.loser_id,
        reason: record.reason,
        resolvedBy: record.resolved_by,
        createdAt,
        merge
      }, Outcome)
      : record.kind === "compatible"
      ? yield* db.write(compatibleQuery, {
        x: record.fact_ids[0],
        y: record.fact_ids[1],
        reason: record.reason,
        resolvedBy: record.resolved_by,
        createdAt
      }, Outcome)
      : record.kind === "confirmation"
      ? yield* db.write(confirmationQuery, {
        factId: record.fact_id,
        id: record.id,
        reason: record.reason,
        confirmedBy: record.confirmed_by,
        createdAt,
        merge
      }, Outcome)
      : yield* db.write(retractionQuery, {
        factId: record.fact_id,
        id: record.id,
        reason: record.reason,
        retractedBy: record.retracted_by,
        createdAt,
        merge
      }, Outcome)
    const outcome = rows[0]
    if (outcome?.existing === true) {
      counts.skipped++
      return "existing" as const
    }
    if (outcome === undefined || outcome.rule !== null) {
      counts.refused.push({ line, rule: outcome?.rule ?? "fact_not_found" })
      return "refused" as const
    }
    counts[countOf[record.kind]]++
    return "written" as const
  }
)

/**
 * Writes the records in their order (line numbers for reports start at 2, after the header), then
 * reads every fork's window from the edges (forkWindow.ts), even when a write failed partway: a
 * window the import left wide open is only ever too wide, and this narrows it again.
 */
export const importRecords = (db: GraphDatabase["Type"], records: ReadonlyArray<MemoryRecord>, merge = false) =>
  writeRecords(db, records, merge).pipe(
    Effect.ensuring(records.length === 0 ? Effect.void : Effect.ignore(rewindForks(db))),
    // Issue 42: the imported facts' thread roots and the clusters, recomputed from the edges.
    Effect.ensuring(records.length === 0 ? Effect.void : Effect.ignore(buildClusters(db)))
  )

const writeRecords = Effect.fn("relay/transfer/importRecords")(
  function*(db: GraphDatabase["Type"], records: ReadonlyArray<MemoryRecord>, merge = false) {
    const counts: ImportCounts = {
      facts: 0,
      decisions: 0,
      compatible: 0,
      retractions: 0,
      confirmations: 0,
      tasks: 0,
      task_notes: 0,
      skipped: 0,
      refused: []
    }
    const queue: Array<TaskRecord> = []
    // Written after every fact and edge: stamped by the process's clock, a task may come before a
    // fact it names (importCheck.ts). Write order leaves no trace: an export sorts by stamp.
    const later: Array<readonly [TaskRecord | TaskNoteRecord, number]> = []
    let batch: Array<FactRecord> = []
    let newest = 0
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!
      newest = Math.max(newest, stamp(record.created_at))
      if (record.kind === "fact") {
        batch.push(record)
        if (batch.length < factBatchSize) continue
      }
      if (batch.length > 0) {
        yield* writeFacts(db, batch, counts)
        batch = []
      }
      if (record.kind === "task" || record.kind === "task_note") later.push([record, i + 2])
      else if (record.kind !== "fact") yield* writeRecord(db, record, i + 2, counts, merge)
    }
    if (batch.length > 0) yield* writeFacts(db, batch, counts)
    // A merge keeps a task the graph has as it stands, and leaves out the file's notes on it.
    const kept = new Set<string>()
    for (const [record, line] of later) {
      if (record.kind === "task_note" && kept.has(record.task_id)) {
        counts.skipped++
        continue
      }
      const result = yield* writeRecord(db, record, line, counts, merge)
      if (record.kind !== "task") continue
      if (result === "existing") kept.add(record.id)
      else if (result === "written" && record.status === "open") queue.push(record)
    }
    const order = queue.map((t) => [queuedAt(t), t.id] as const).sort((a, b) =>
      a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1
    )
    for (let i = 0; i < order.length; i += factBatchSize) {
      yield* db.write(queueTasks, { ids: order.slice(i, i + factBatchSize).map(([, id]) => id) })
    }
    if (records.length > 0) yield* db.write(moveClock, { newest })
    return counts
  }
)
