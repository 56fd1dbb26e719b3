import { Effect } from "effect"
import { ConstraintType, EntityType, type Graph } from "falkordb"
import { mergeClocks } from "./clockRepair.js"
import { driverCall } from "./driverErrors.js"
import { mergeReaderPlaces } from "./readerPlaces.js"

/**
 * Indexes the queries rely on, and the unique constraint that makes a repeated write of the same
 * fact id a no-op. What exists is read first with read-only calls and left alone, so a process
 * that joins a database refusing writes (full, read-only) can still serve reads.
 */
type Entity = "NODE" | "RELATIONSHIP"
const index = (entity: Entity, label: string, property: string) => ({
  /** As db.indexes() lists it (see `existing`). */
  key: `${entity} ${label} ${property}`,
  create: entity === "NODE"
    ? `CREATE INDEX FOR (x:${label}) ON (x.${property})`
    : `CREATE INDEX FOR ()-[x:${label}]-() ON (x.${property})`
})

const indexes = [
  // Every label a statement MERGEs exists before any plan names it: FalkorDB 4.16 plans a MERGE on a
  // label the graph does not have yet as matching nothing, so two first statements at once (two
  // assistants starting on a new memory) each made a clock node, and every later save bound both and
  // wrote its fact twice (a unique-constraint refusal on every save). Not on the clock's or the
  // rank head's `id`: their id is 0, the value 4.16.3's range index loses (`dropped` below).
  index("NODE", "RelayClock", "schema"),
  // No RankHead has `made`: the index only makes the label exist.
  index("NODE", "RankHead", "made"),
  index("NODE", "Fact", "id"),
  index("NODE", "Fact", "created_at"),
  index("NODE", "Fact", "session_id"),
  // Whether a graph holds any merge, one index entry away (layers/factStore/mergeGate.ts): only
  // merges and what builds on them have the property, so other saves pay nothing for it.
  index("NODE", "Fact", "merge_depth"),
  // Threads and clusters kept on write (layers/factStore/threadClusters.ts): a fact's thread root,
  // each root's cluster on its THREAD self-loop, each cluster's tallies on its CLUSTER self-loop, a
  // forked parent's root on its MARKS edge; the types exist before any plan names them.
  index("NODE", "Fact", "root"),
  index("RELATIONSHIP", "THREAD", "cluster"),
  index("RELATIONSHIP", "THREAD", "root"),
  index("RELATIONSHIP", "CLUSTER", "rep"),
  index("RELATIONSHIP", "CLUSTER", "size"),
  index("RELATIONSHIP", "CLUSTER", "first"),
  index("RELATIONSHIP", "MARKS", "root"),
  // Importance materialised (layers/factStore/rankGenerations.ts): a generation's entries by place,
  // and its head (the generation read, as of when, the lease) on the clock node's RANKS self-loop.
  index("RELATIONSHIP", "RANKED", "gen"),
  index("RELATIONSHIP", "RANKED", "pos"),
  index("RELATIONSHIP", "RANKED", "rank"),
  index("RELATIONSHIP", "RANKS", "gen"),
  index("NODE", "BriefingCursor", "name"),
  // Each name's first spelling, by its lower-cased key (layers/factStore/agentNames.ts).
  index("NODE", "Agent", "key"),
  // A reader's position, on its cursor's self-loop (briefing.ts); the type exists before any plan.
  index("RELATIONSHIP", "READ_TO", "as_of"),
  // A term's document count, read by each any-word search (layers/factStore/termCounts.ts).
  index("NODE", "Term", "term"),
  index("RELATIONSHIP", "SUPERSEDES", "created_at"),
  // The decisions an import brought, for each reader's next briefing (layers/factStore/importedNotes.ts).
  index("RELATIONSHIP", "SUPERSEDES", "import_id"),
  // Each forked parent's window (layers/factStore/forkWindow.ts): the open conflicts start there.
  index("RELATIONSHIP", "MARKS", "opened"),
  index("RELATIONSHIP", "MARKS", "closed"),
  // Also makes the RETRACTS type exist before any query is compiled: FalkorDB 4.16 caches a plan that
  // names a relationship type the graph does not have yet as matching nothing, and keeps answering
  // so after the first retraction (as_of statuses stayed active; found by the property test).
  index("RELATIONSHIP", "RETRACTS", "created_at"),
  // ALSO_ON likewise (a fact's parents after its first, saveMerge.ts): every read that finds children names it.
  index("RELATIONSHIP", "ALSO_ON", "created_at"),
  // CONFIRMS likewise (confirm.ts and the as_of reads name it).
  index("RELATIONSHIP", "CONFIRMS", "created_at"),
  // A request_id's Confirmation, found wherever it is (confirm.ts refuses its reuse on another fact).
  index("NODE", "Confirmation", "id"),
  // The export's and the studio's live reads of COMPATIBLE records in write order (exportRecords.ts).
  index("RELATIONSHIP", "COMPATIBLE", "created_at"),
  // FORKS edges (factStore/forkRule.ts) carry no property: the index makes the type exist before any
  // plan names it (a plan cached before finds nothing through it, and walks every edge meanwhile).
  index("RELATIONSHIP", "FORKS", "created_at"),
  // The task board (src/layers/tasks): the queue takes places by seq and expired leases by
  // lease_until, never sorting every open task; ABOUT and NOTE_ON exist before any query names them.
  // What changes is on a task's STATE self-loop (taskMap.ts), so those indexes are the edge's.
  index("NODE", "Task", "id"),
  index("NODE", "Task", "created_at"),
  index("RELATIONSHIP", "STATE", "seq"),
  index("RELATIONSHIP", "STATE", "lease_until"),
  index("RELATIONSHIP", "STATE", "claim_id"),
  index("RELATIONSHIP", "STATE", "status"),
  // relay_list_tasks with claimed_by reads only that agent's tasks (layers/tasks/list.ts).
  index("RELATIONSHIP", "STATE", "holder"),
  index("NODE", "TaskNote", "created_at"),
  index("NODE", "TaskQueue", "key"),
  // Procedures (layers/procedures): a run by its id (a retry) and a page of runs by slot, exact
  // lookups whatever a procedure's count; a briefing's failed runs by stamp; STEP and RAN exist
  // before any plan names them.
  index("NODE", "Run", "id"),
  index("NODE", "Run", "slot"),
  index("NODE", "Run", "created_at"),
  index("RELATIONSHIP", "STEP", "i"),
  index("RELATIONSHIP", "RAN", "created_at"),
  // Also makes the TALLY type exist before any plan names it (a MERGE planned without it would make
  // a second edge): the queue's head and last place and the board's counts (taskMap.ts).
  index("RELATIONSHIP", "TALLY", "tail"),
  index("RELATIONSHIP", "ABOUT", "created_at"),
  index("RELATIONSHIP", "NOTE_ON", "created_at")
]

/**
 * Indexes an older Relay made that this one drops. RelayClock's id: FalkorDB 4.16.3's range index
 * loses the entries whose value is the number 0 when the server loads a rewritten append-only file
 * (BGREWRITEAOF, which the embedded server asks for: aofTail.ts), and the clock's id is 0, so every
 * later write's MERGE made another clock node. There is one clock node: its label scan costs nothing.
 */
const dropped = [{
  key: "NODE RelayClock id",
  drop: "DROP INDEX FOR (x:RelayClock) ON (x.id)"
}]

/**
 * The full-text index relay_search queries (FalkorDB's RediSearch-backed index on Fact.content):
 * English stemming ("tokens" finds "token") and no stopwords, so "not" and "no", which carry meaning
 * in a decision, stay searchable (FalkorDB's own default is also none; saying it keeps it so). It
 * shares the label's index with the range indexes above, so it is told apart by its type.
 */
const fullText = {
  label: "Fact",
  property: "content",
  create: "CALL db.idx.fulltext.createNodeIndex({label: 'Fact', language: 'english', stopwords: []}, 'content')"
}

interface Row {
  readonly entity: string
  readonly label: string
  readonly properties: ReadonlyArray<string>
}

const existing = (graph: Graph, procedure: string, entity: string) =>
  driverCall(() => graph.roQuery<Row>(`CALL ${procedure} RETURN ${entity} AS entity, label, properties`)).pipe(
    Effect.map((reply) =>
      new Set((reply.data ?? []).flatMap((r) => r.properties.map((p) => `${r.entity} ${r.label} ${p}`)))
    ),
    Effect.catchIf((e) => e.reason === "no_graph", () => Effect.succeed(new Set<string>()))
  )

const ignoreExisting = <A>(make: () => Promise<A>) =>
  driverCall(make).pipe(
    Effect.asVoid,
    Effect.catchIf((e) => e.reason === "exists", () => Effect.void)
  )

const hasFullText = (graph: Graph) =>
  driverCall(() =>
    graph.roQuery<{ types: Record<string, ReadonlyArray<string>> }>(
      `CALL db.indexes() YIELD label, types, entitytype WHERE label = $label AND entitytype = 'NODE' RETURN types`,
      { params: { label: fullText.label } }
    )
  ).pipe(
    Effect.map((reply) => (reply.data ?? []).some((r) => r.types[fullText.property]?.includes("FULLTEXT") === true)),
    Effect.catchIf((e) => e.reason === "no_graph", () => Effect.succeed(false))
  )

export const ensureSchema = Effect.fn("relay/graph/ensureSchema")(function*(graph: Graph) {
  const haveIndexes = yield* existing(graph, "db.indexes() YIELD label, properties, entitytype", "entitytype")
  const missing = indexes.filter((i) => !haveIndexes.has(i.key))
  yield* Effect.forEach(missing, (i) => ignoreExisting(() => graph.query(i.create)), { discard: true })
  yield* Effect.forEach(
    dropped.filter((i) => haveIndexes.has(i.key)),
    (i) =>
      driverCall(() => graph.query(i.drop)).pipe(
        Effect.asVoid,
        // A replica refuses it and keeps serving reads: its primary's Relay drops it, and that reaches it.
        Effect.catchIf((e) => e.reason === "refused" && /\bREADONLY\b/.test(e.detail), (e) =>
          Effect.logWarning(
            "an index this Relay no longer uses could not be dropped: the database is a read-only replica"
          )
            .pipe(Effect.annotateLogs({ detail: e.detail })))
      ),
    { discard: true }
  )
  yield* mergeClocks(graph)
  yield* mergeReaderPlaces(graph)
  if (!(yield* hasFullText(graph))) yield* ignoreExisting(() => graph.query(fullText.create))
  const haveConstraints = yield* existing(graph, "db.constraints() YIELD type, label, properties", "type")
  if (!haveConstraints.has("UNIQUE Fact id")) {
    yield* ignoreExisting(() => graph.constraintCreate(ConstraintType.UNIQUE, EntityType.NODE, "Fact", "id"))
  }
})
