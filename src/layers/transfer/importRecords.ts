import { Effect, Schema } from "effect"
import { entrySets, mergePlaces } from "../../domain/batchEntry.js"
import type { DatabaseError } from "../../domain/errors.js"
import { type ChildStamp, marksFork } from "../../domain/forkMarks.js"
import type {
  CompatibleRecord,
  ConfirmationRecord,
  DecisionRecord,
  FactRecord,
  MemoryRecord,
  RetractionRecord,
  RunRecord,
  TaskNoteRecord,
  TaskRecord
} from "../../domain/memoryRecord.js"
import type { CypherValue, GraphDatabase } from "../../services/GraphDatabase.js"
import { type ImportCounts, type ImportProgress, ImportStopped } from "../../services/Transfer.js"
import { clockRead, clockSetQuery } from "../database/clock.js"
import { namePairs, recordNamesQuery } from "../factStore/agentNames.js"
import { relatedClause } from "../factStore/buildsOn.js"
import { textBytes } from "../factStore/capacity.js"
import { confirmable, confirmGate, createConfirmation, recomputeBelow, specialsBelow } from "../factStore/confirm.js"
import {
  factNode,
  factProperties,
  type FactProperty,
  factRow,
  type FactRowFor,
  fromTuple,
  tupleOf
} from "../factStore/factNode.js"
import { writeMark } from "../factStore/forkMark.js"
import { linkForksQuery } from "../factStore/forkRule.js"
import { rewindForks } from "../factStore/forkWindow.js"
import { oneHop } from "../factStore/oneHop.js"
import { asMap, resolutionProps, retractionOf, retractionProps } from "../factStore/recordProps.js"
import { inheritedStale, markDependents, neverStale, staleAt } from "../factStore/staleness.js"
import { addDocs, addTermCountsParams } from "../factStore/termCounts.js"
import { batchClusters, clusterOnBatch, joinClusters } from "../factStore/threadClusters.js"
import { hubsOf, throughMerges } from "../factStore/walkDown.js"
import { moveCount } from "../tasks/taskCounts.js"
import { queueNode, taskById } from "../tasks/taskMap.js"
import {
  forksOfBatch,
  type ImportMemory,
  importMemory,
  type Place,
  rememberFacts,
  rememberRetraction
} from "./importMemory.js"

/**
 * Writes checked records (domain/importCheck.ts) into the graph, keeping ids and created_at and
 * deriving everything else again: a fact's normalised content, its fork mark, and its stored
 * staleness (a decision or retraction marks the dependents already imported, a fact inherits it). Tasks keep the state the file gives them; open ones join the
 * queue's tail in the order they last entered a queue. Facts go in batches of `factBatchSize`, each
 * one atomic statement (nodes, parent edges, staleness, the capacity and search counts, the clock);
 * the decisions, compatible records and retractions met meanwhile follow the batch: in a merge each
 * one statement that checks its rule against the graph as it stands, so a merge never writes what
 * the rules refuse; into an empty graph (the file's rules are all there is) one statement with the
 * fork marks of every `afterEvery` batches (afterBatchQuery). (A decision or retraction lowers the stamps of what is below
 * its fact whenever it lands, so facts saved after it may be written first; a confirmation raises
 * them as they stand, so everything before it is written first.) The batch's parents get their fork
 * marks by the rule a save applies, from the stamps (domain/forkMarks.ts): a merge reads the children from the graph,
 * an import into an empty graph has them in its memory (importMemory.ts), as it has the places and
 * roots of its own facts. Facts already in the graph by id are skipped, as are edges already there;
 * a rerun (a merge) marks the forks of every batch again, so a batch whose marks failed gets them.
 */
export const factBatchSize = 250

/**
 * Into an empty graph, the records and fork marks after this many batches go in one statement: its
 * stamps' SET is the first node update after the batches' CREATEs, which in FalkorDB 4.16 costs in
 * proportion to the graph (docs/design/performance.md) once, whatever the rows. Nothing a batch's
 * CREATE reads from the graph depends on them: a fact written before a decision above it is lowered
 * by the decision's walk, as one written after it would inherit the stamp. A confirmation, which
 * raises stamps as they stand, and the end of the file write them first; an import that stops
 * before leaves them to the rerun (`--merge` checks and writes each record, and marks every batch).
 */
export const afterEvery = 4

/** ForkMarks a statement when the import reads every window from the edges at its end. */
const rewindBatch = 100

/** A batch's row as sent: every stored property but the vector (an import brings none), then the parent. */
const rowFields: ReadonlyArray<Exclude<FactProperty, "embedding"> | "parent_id"> = [
  ...factProperties.filter((p): p is Exclude<FactProperty, "embedding"> => p !== "embedding"),
  "parent_id"
]
const field = (name: typeof rowFields[number]) => `r[${rowFields.indexOf(name)}]`

/**
 * New facts in one statement: nodes first, then (after the aggregation, which ends the CREATE) the
 * BUILDS_ON edges, whose parents may be in the same batch, then the ALSO_ON edges of a fact on
 * several, in the order the file names them.
 */
const createFacts = `UNWIND $rows AS r ` +
  // Stale from when the earliest of its nearest ancestors outside the batch is, read before
  // (outsideQuery): a node's property set after a labelled node was created costs in proportion to
  // the graph (docs/design/performance.md), so the CREATE holds it.
  `CREATE ${factNode("", { ...fromTuple("r", rowFields), embedding: null })} ` +
  // A procedure's Step nodes (procedures/steps.ts), in the batch's statement: it lands whole or not at all.
  `WITH count(*) AS made ` +
  `UNWIND $steps AS s MATCH (s_p:Fact {id: s[0]}) ` +
  `CREATE (s_p)-[:STEP {i: s[2]}]->(:Step {procedure_id: s[0], part: s[1], i: s[2], text: s[3]}) ` +
  `WITH count(*) AS stepped ` +
  `UNWIND $rows AS r WITH r WHERE ${field("parent_id")} IS NOT NULL ` +
  `MATCH (f:Fact {id: ${field("id")}}), (p:Fact {id: ${field("parent_id")}}) CREATE (f)-[:BUILDS_ON]->(p) ` +
  `WITH count(*) AS linked ` +
  `UNWIND $also AS a MATCH (f:Fact {id: a[0]}), (q:Fact {id: a[1]}) CREATE (f)-[:ALSO_ON]->(q) ` +
  // And the spans a confirmation closed above its first parent's line (rare: only those rows): a
  // fact merged in with an older stamp was stale then too.
  `WITH count(*) AS alsoLinked ` +
  `UNWIND $spans AS sp MATCH (f:Fact {id: sp[0]}) SET f.stale_spans = sp[1] ` +
  // In the same statement, so a batch that lands is counted once and one that fails leaves nothing:
  // search's document counts (termCounts.ts), the capacity counts (capacity.ts) and the clock, which
  // never moves past the import's now (a file's stamps may run up to the window ahead of it).
  `WITH count(*) AS staled FOREACH (c IN $counts | ${addDocs("c[0]", "c[1]")}) ` +
  // The batch's threads and clusters (threadClusters.ts), stamps as they are (offsets from 0).
  `WITH 0 AS base ${clusterOnBatch}` +
  clockSetQuery({
    docs: "coalesce(clk.docs, 0) + $docs",
    terms: "coalesce(clk.terms, 0) + $terms",
    facts: "coalesce(clk.facts, 0) + $facts",
    bytes: "coalesce(clk.bytes, 0) + $bytes",
    last: "CASE WHEN clk.last IS NULL OR clk.last < $newest THEN $newest ELSE clk.last END"
  })

/**
 * The nearest merge, merge depth and thread root of facts already stored, for the batch's facts on
 * them, and when each is stale from (staleness.ts) with the spans a confirmation closed: the batch
 * inherits them (domain/batchEntry.ts).
 */
const outsideQuery = `UNWIND $ids AS id MATCH (f:Fact {id: id}) ` +
  `RETURN f.id AS id, f.merge_of AS merge_of, coalesce(f.merge_depth, 0) AS depth, f.root AS root, ` +
  `${inheritedStale("f")} AS stale, f.stale_spans AS spans`
const OutsideRow = Schema.Struct({
  id: Schema.String,
  merge_of: Schema.NullOr(Schema.String),
  depth: Schema.Number,
  root: Schema.NullOr(Schema.String),
  stale: Schema.Number,
  spans: Schema.NullOr(Schema.Array(Schema.Number))
})

/**
 * The children of the batch's parents, with what marksFork reads (domain/forkMarks.ts). From each
 * parent by its index, then along its own adjacency (oneHop.ts: a plain one-hop comprehension
 * builds a matrix a row, ~0.1 ms here) and indegree(): the cost is the parents' children, never the
 * graph. (A MATCH of the children with a WHERE on them let FalkorDB 4.16 start from every Fact once
 * a parent: 60,020 rows for 20 parents of 3,001 facts, past the 2 s timeout.)
 */
const childrenOf = (type: string, path: string) =>
  oneHop({ from: "p", dir: "in", type, path, to: `${path}_c`, yields: `${path}_c` })

export const forkChildrenQuery = `UNWIND $parents AS pid MATCH (p:Fact {id: pid}) ` +
  `WITH pid, ${childrenOf("BUILDS_ON", "fb")} + ${childrenOf("ALSO_ON", "fa")} AS kids ` +
  `UNWIND kids AS c ` +
  `RETURN pid AS parent, c.id AS id, c.norm AS norm, coalesce(c.kind, '') <> '' AS kinded, ` +
  `c.created_at AS created_at, CASE WHEN indegree(c, 'RETRACTS') > 0 THEN ${
    oneHop({
      from: "c",
      dir: "in",
      type: "RETRACTS",
      path: "cr",
      to: "cr_r",
      yields: "relationships(cr)[0].created_at"
    })
  }[0] END AS retracted_at, ` +
  // A revision's SUPERSEDES edge is stamped as its fact is (createFact.ts recordRevision); a decision's later.
  `CASE WHEN outdegree(c, 'SUPERSEDES') > 0 THEN ${
    oneHop({
      from: "c",
      dir: "out",
      type: "SUPERSEDES",
      path: "cs",
      to: "cs_o",
      where: "relationships(cs)[0].created_at = c.created_at",
      yields: "cs_o.id"
    })
  }[0] END AS revises, ` +
  `CASE WHEN indegree(c, 'FORKS') + outdegree(c, 'FORKS') > 0 THEN ${
    oneHop({ from: "c", dir: "both", type: "FORKS", path: "cf", to: "cf_y", yields: "cf_y.id" })
  } ELSE [] END AS paired`

const ForkChildRow = Schema.Struct({
  parent: Schema.String,
  id: Schema.String,
  norm: Schema.String,
  kinded: Schema.Boolean,
  created_at: Schema.Number,
  retracted_at: Schema.NullOr(Schema.Number),
  revises: Schema.NullOr(Schema.String),
  paired: Schema.Array(Schema.String)
})

/**
 * The marks a batch makes (forkMark.ts writeMark): a new one open since forever until rewindForks
 * reads every window from the edges, an existing one opened again if closed (a conflict a merge
 * opens under a parent decided before is never hidden meanwhile, nor when the import stops before
 * its end).
 */
export const forkMarkQuery = `UNWIND $parents AS pid MATCH (p:Fact {id: pid}) ${writeMark("p", "true", "0")}`

/**
 * Into an empty graph: the FORKS pairs under the parents that can have them and the marks of the
 * forks the import's memory finds by the save's rule (importMemory.ts, domain/forkMarks.ts), in one
 * statement.
 */
export const linkAndMarkQuery = `${linkForksQuery} WITH count(*) AS linked ` +
  `UNWIND $marks AS mid MATCH (p:Fact {id: mid}) ${writeMark("p", "true", "0")}`

/**
 * A merge's batch: reads the children of the parents of the file's facts (the graph may have its
 * own) and marks the parents the rule makes forks (domain/forkMarks.ts). (Into an empty graph the
 * import's memory has them, FORKS pairs included: afterBatchQuery.)
 */
const markForks = Effect.fn("relay/transfer/markForks")(
  function*(
    db: GraphDatabase["Type"],
    batch: ReadonlyArray<FactRecord>,
    revisions: ReadonlyMap<string, string>
  ) {
    const parents = [...new Set(batch.flatMap(parentsOf))]
    if (parents.length === 0) return
    const fromFile = new Set(batch.map((f) => f.id))
    // The fork pairs with a choice or a contradicts in them (forkRule.ts): FORKS edges, read below.
    for (let i = 0; i < parents.length; i += factBatchSize) {
      yield* db.write(linkForksQuery, { parents: parents.slice(i, i + factBatchSize), ids: [...fromFile] })
    }
    const byParent = new Map<string, Array<ChildStamp>>()
    for (let i = 0; i < parents.length; i += factBatchSize) {
      const rows = yield* db.read(forkChildrenQuery, { parents: parents.slice(i, i + factBatchSize) }, ForkChildRow)
      for (const r of rows) {
        const kids = byParent.get(r.parent) ?? []
        kids.push({
          id: r.id,
          norm: r.norm,
          kinded: r.kinded,
          createdAt: r.created_at,
          retractedAt: r.retracted_at,
          // The file's revision may be written after this batch (its record follows its fact's).
          revises: r.revises ?? revisions.get(r.id) ?? null,
          pairedWith: r.paired
        })
        byParent.set(r.parent, kids)
      }
    }
    const forked = [...byParent].filter(([, kids]) => marksFork(kids, fromFile)).map(([p]) => p)
    if (forked.length === 0) return
    yield* db.write(forkMarkQuery, { parents: forked })
  }
)

/** The file's revisions: a decision stamped as its winner's fact is that fact's save superseding the loser. */
const revisionsOf = (records: ReadonlyArray<MemoryRecord>): ReadonlyMap<string, string> => {
  const stamps = new Map<string, string>()
  const out = new Map<string, string>()
  for (const r of records) {
    if (r.kind === "fact") stamps.set(r.id, r.created_at)
    else if (r.kind === "decision" && stamps.get(r.winner_id) === r.created_at) out.set(r.winner_id, r.loser_id)
  }
  return out
}

const existingIds = `UNWIND $ids AS id MATCH (f:Fact {id: id}) RETURN f.id AS id`

const rootsQuery = `UNWIND $ids AS id MATCH (f:Fact {id: id}) RETURN f.id AS id, f.root AS root`
const RootRow = Schema.Struct({ id: Schema.String, root: Schema.NullOr(Schema.String) })

/**
 * The decided pairs whose facts are in two threads: only those can join two clusters (one root is
 * one thread, always one cluster: threadClusters.ts). Most decisions settle a fork of siblings, so
 * the chunk's roots (the import's own facts' from memory, others read once) spare a statement a decision.
 */
const acrossThreads = Effect.fn("relay/transfer/acrossThreads")(
  function*(db: GraphDatabase["Type"], chunk: ReadonlyArray<Record<string, CypherValue>>, memory: ImportMemory) {
    const ids = [...new Set(chunk.flatMap((d) => [d.w as string, d.l as string]))]
    const unknown = ids.filter((id) => !memory.places.has(id))
    const rows = unknown.length === 0 ? [] : yield* db.read(rootsQuery, { ids: unknown }, RootRow)
    const roots = new Map(rows.map((r) => [r.id, r.root ?? r.id]))
    for (const id of ids) {
      const place = memory.places.get(id)
      if (place !== undefined) roots.set(id, place.root)
    }
    return chunk
      .map((d) => [d.w as string, d.l as string] as const)
      .filter(([w, l]) => roots.get(w) === undefined || roots.get(w) !== roots.get(l))
  }
)

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

/** A decision's or compatible record's properties from the file, one a statement (merge) or from a row `d`. */
const fromTheFile = resolutionProps({ reason: "$reason", by: "$resolvedBy", at: "$createdAt" }, {
  import_id: "$importId"
})
const fromARow = resolutionProps({ reason: "d.reason", by: "d.by", at: "d.at" }, { import_id: "$importId" })

export const decisionQuery = `MATCH (w:Fact {id: $winnerId}), (l:Fact {id: $loserId}) ` +
  `WITH w, l, size([(w)-[:SUPERSEDES]->(l) | 1]) > 0 AS existing, ` +
  `shortestPath((l)-[:SUPERSEDES*]->(w)) IS NOT NULL AS cycle ` +
  relatedClause(["w", "l", "existing", "cycle"]) +
  shieldedBelow("l", ["w", "existing", "cycle", "related"]) +
  `WITH w, l, existing, cycle, related, shielded, NOT existing AND NOT cycle AND NOT related AND NOT shielded AS write ` +
  `FOREACH (_ IN CASE WHEN write THEN [1] ELSE [] END | ` +
  `CREATE (w)-[:SUPERSEDES ${asMap(fromTheFile)}]->(l)) ` +
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
  `CREATE (x)-[:COMPATIBLE ${asMap(fromTheFile)}]->(y)) ` +
  `RETURN existing, CASE WHEN NOT siblings THEN 'not_siblings' WHEN decided THEN 'already_superseded' END AS rule`

export const retractionQuery = `MATCH (f:Fact {id: $factId}) ` +
  `WITH f, indegree(f, 'RETRACTS') > 0 AS existing ` +
  shieldedBelow("f", ["existing"]) +
  `FOREACH (_ IN CASE WHEN existing OR shielded THEN [] ELSE [1] END | ` +
  `CREATE ${
    retractionOf(
      retractionProps({ id: "$id", reason: "$reason", by: "$retractedBy", at: "$createdAt" }, {
        import_id: "$importId"
      }),
      "f"
    )
  }) ` +
  `WITH f, existing, shielded, CASE WHEN existing OR shielded THEN NULL ELSE $createdAt END AS at ` +
  markDependents("f", "at", ["existing", "shielded"]) +
  `RETURN existing, CASE WHEN shielded AND NOT existing THEN 'before_confirmation' END AS rule`

/**
 * Into an empty graph (no merge) the file's own rules are all there is to check (importCheck.ts did,
 * before the first write), so decisions, compatible records and retractions go many a statement: the
 * edges, then each dependent's stamp lowered once, to the earliest of the rows above it (two rows'
 * SETs on one node in FalkorDB 4.16 do not apply in row order). The rows bind `x` (the decided or
 * retracted fact) and `at`; the walk is markDependents' (staleness.ts): the first parents' subtree,
 * then through extra parents. One record a statement cost ~40 ms each at 50k facts, most of it the
 * node updates after a CREATE that FalkorDB 4.16 makes cost with the graph's size.
 */
const markRows = `OPTIONAL MATCH (x)<-[:BUILDS_ON*1..]-(x_dep) WITH x, at, collect(x_dep) AS x_deps ` +
  `WITH at, x_deps, [x_h IN x_deps WHERE indegree(x_h, 'ALSO_ON') > 0] + ` +
  `CASE WHEN indegree(x, 'ALSO_ON') > 0 THEN [x] ELSE [] END AS x_hubs ` +
  throughMerges("x_hubs", "x_more", ["at", "x_deps"]) +
  `UNWIND x_deps + x_more AS dep WITH dep, min(at) AS at WHERE ${staleAt("dep")} > at SET dep.stale_at = at`

const decisionRows = (list: string) =>
  `UNWIND ${list} AS d MATCH (w:Fact {id: d.w}), (x:Fact {id: d.l}) ` +
  `CREATE (w)-[:SUPERSEDES ${asMap(fromARow)}]->(x) ` +
  `WITH x, d.at AS at ${markRows}`

const retractionRows = (list: string) =>
  `UNWIND ${list} AS d MATCH (x:Fact {id: d.f}) ` +
  `CREATE ${
    retractionOf(
      retractionProps({ id: "d.id", reason: "d.reason", by: "d.by", at: "d.at" }, { import_id: "$importId" }),
      "x"
    )
  } WITH x, d.at AS at ${markRows}`

const compatibleRows = (list: string) =>
  `UNWIND ${list} AS d MATCH (x:Fact {id: d.x}), (y:Fact {id: d.y}) ` +
  `CREATE (x)-[:COMPATIBLE ${asMap(fromARow)}]->(y)`

/**
 * What follows a few batches of facts into an empty graph (afterEvery), in one statement: its decisions, compatible
 * records and retractions, each kind's dependents' stamps lowered before the next kind reads them
 * (each part ends in an aggregation, so its SETs are done), then the batch's fork pairs and marks
 * (linkAndMarkQuery, from the import's memory with the retractions counted). One statement a kind
 * cost a round trip each for a few rows.
 */
export const afterBatchQuery = `${decisionRows("$decisions")} WITH count(*) AS decided ` +
  `${compatibleRows("$compatible")} WITH count(*) AS joined ` +
  `${retractionRows("$retractions")} WITH count(*) AS retracted ` +
  linkAndMarkQuery

type EdgeRecord = DecisionRecord | CompatibleRecord | RetractionRecord

/** The rows of each kind, a pair once (a repeat of a pair is skipped, as the one-a-statement path does). */
const rowsOf = (pending: ReadonlyArray<readonly [EdgeRecord, number]>, seen: Set<string>) => {
  const decisions: Array<Record<string, CypherValue>> = []
  const compatible: Array<Record<string, CypherValue>> = []
  const retractions: Array<Record<string, CypherValue>> = []
  let repeats = 0
  for (const [r] of pending) {
    const key = r.kind === "decision"
      ? `d ${r.winner_id} ${r.loser_id}`
      : r.kind === "compatible"
      ? `c ${r.fact_ids[0]} ${r.fact_ids[1]}`
      : `r ${r.fact_id}`
    if (seen.has(key)) {
      repeats++
      continue
    }
    seen.add(key)
    const at = stamp(r.created_at)
    if (r.kind === "decision") {
      decisions.push({ w: r.winner_id, l: r.loser_id, reason: r.reason, by: r.resolved_by, at })
    } else if (r.kind === "compatible") {
      compatible.push({ x: r.fact_ids[0], y: r.fact_ids[1], reason: r.reason, by: r.resolved_by, at })
    } else retractions.push({ f: r.fact_id, id: r.id, reason: r.reason, by: r.retracted_by, at })
  }
  return { decisions, compatible, retractions, repeats }
}

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
  `needs_approval: $needsApproval, max_attempts: $maxAttempts, procedure_id: $procedureId})-[:STATE {status: $status, attempts: $attempts, ` +
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

/**
 * The Relay clock moves past the newest stamp imported, so every later write is stamped after it;
 * never past the import's now (a stamp of the file within the window ahead does not move it there).
 */
const moveClock = clockSetQuery({
  last: "CASE WHEN clk.last IS NULL OR clk.last < $newest THEN $newest ELSE clk.last END"
})

const linkConfirmation = "MATCH (c:Confirmation {id: $id}) WHERE c.import_id IS NULL SET c.import_id = $importId"

const Outcome = Schema.Struct({ existing: Schema.Boolean, rule: Schema.NullOr(Schema.String) })
const IdRow = Schema.Struct({ id: Schema.String })

const stamp = (iso: string) => Date.parse(iso)

/** A fact's parents, the first one first. */
const parentsOf = (f: FactRecord): Array<string> => (f.parent_id === null ? [] : [f.parent_id, ...(f.also_on ?? [])])

/**
 * Each fresh fact's thread root (threadClusters.ts): a root's own id, else its first parent's root,
 * from the batch (a parent anywhere in it) or from the graph (`stored`). A parent found in neither
 * (none, as the import checks parents first) stands as its own root.
 */
const threadRootsOf = (fresh: ReadonlyArray<FactRecord>, stored: ReadonlyMap<string, string>) => {
  const parentOf = new Map(fresh.map((f) => [f.id, f.parent_id]))
  const roots = new Map<string, string>()
  const rootOf = (id: string): string => {
    const path: Array<string> = []
    let at = id
    let root: string | undefined
    for (;;) {
      root = roots.get(at) ?? stored.get(at)
      if (root !== undefined) break
      const up = parentOf.get(at)
      // Not a fresh fact with a parent: a root (or a parent neither here nor stored), or a cycle.
      if (up === undefined || up === null || path.includes(at)) {
        root = at
        break
      }
      path.push(at)
      at = up
    }
    for (const x of path) roots.set(x, root)
    if (parentOf.has(at) && !roots.has(at)) roots.set(at, root)
    return root
  }
  for (const f of fresh) rootOf(f.id)
  return roots
}

const writeFacts = Effect.fn("relay/transfer/writeFacts")(
  function*(
    db: GraphDatabase["Type"],
    batch: ReadonlyArray<FactRecord>,
    counts: ImportCounts,
    options: {
      readonly now: number
      readonly merge: boolean
      readonly named: Set<string>
      readonly memory: ImportMemory
    }
  ) {
    const { memory } = options
    const { now } = options
    // Into an empty graph (checked before the first write) with ids unique in the file (importCheck.ts),
    // none is there: only a merge looks.
    const there = options.merge
      ? new Set((yield* db.read(existingIds, { ids: batch.map((f) => f.id) }, IdRow)).map((r) => r.id))
      : new Set<string>()
    const fresh = batch.filter((f) => !there.has(f.id))
    counts.skipped += batch.length - fresh.length
    if (fresh.length === 0) return
    const withParents = fresh.map((f) => ({
      id: f.id,
      parents: f.parent_id === null ? [] : [f.parent_id, ...(f.also_on ?? [])]
    }))
    const inBatch = new Set(fresh.map((f) => f.id))
    const fromOutside = [...new Set(withParents.flatMap((f) => f.parents))].filter((id) => !inBatch.has(id))
    const outsideRows = fromOutside.length === 0
      ? []
      : yield* db.read(outsideQuery, { ids: fromOutside }, OutsideRow)
    const outside = new Map<string, Place>(
      outsideRows.map((r) => [r.id, { mergeOf: r.merge_of, depth: r.depth, root: r.root ?? r.id }])
    )
    const staleOf = new Map(outsideRows.map((r) => [r.id, r]))
    const places = mergePlaces(withParents, outside)
    const entries = entrySets(withParents)
    const roots = threadRootsOf(fresh, new Map([...outside].map(([id, p]) => [id, p.root])))
    const rows = fresh.map((f, k) => ({
      merge_of: places[k]!.mergeOf,
      merge_depth: places[k]!.depth === 0 ? null : places[k]!.depth,
      ...factRow({
        id: f.id,
        content: f.content,
        writtenBy: f.written_by,
        sessionId: f.session_id,
        kind: f.fact_kind ?? null,
        contradicts: f.contradicts ?? null
      }),
      created_at: stamp(f.created_at),
      stale_at: Math.min(neverStale, ...entries[k]!.map((e) => staleOf.get(e)?.stale ?? neverStale)),
      parent_id: f.parent_id,
      root: roots.get(f.id)!,
      // A procedure's version and lineage as the file says (a file of version 1: a first version
      // without steps); its counts start at 0 and its runs add to them (writeRuns).
      ...(f.fact_kind === "procedure"
        ? { version: f.procedure?.version ?? 1, lineage: [...(f.procedure?.lineage ?? [])], runs_ok: 0, runs_failed: 0 }
        : { version: null, lineage: null, runs_ok: null, runs_failed: null })
    } satisfies FactRowFor<"embedding"> & { readonly parent_id: string | null }))
    const newest = Math.min(now, Math.max(...rows.map((r) => r.created_at)))
    yield* db.write(createFacts, {
      rows: rows.map((r) => tupleOf(r, rowFields)),
      also: fresh.flatMap((f) => (f.also_on ?? []).map((q) => [f.id, q])),
      steps: fresh.flatMap((f) =>
        f.procedure === undefined ? [] : [
          ...f.procedure.preconditions.map((t, i) => [f.id, "pre", i, t]),
          ...f.procedure.steps.map((t, i) => [f.id, "step", i, t])
        ]
      ),
      spans: fresh.flatMap((f, k): Array<[string, ReadonlyArray<number>]> => {
        const spans = entries[k]!.length === 0 ? null : staleOf.get(entries[k]![0]!)?.spans ?? null
        return spans === null ? [] : [[f.id, spans]]
      }),
      ...addTermCountsParams(rows.map((r) => r.terms)),
      facts: rows.length,
      bytes: rows.reduce((n, r) => n + textBytes(r.content), 0),
      newest,
      ...batchClusters(rows.map((r) => ({ id: r.id, root: r.root, at: r.created_at })))
    })
    rememberFacts(
      memory,
      fresh.map((f, k) => ({
        id: f.id,
        parents: withParents[k]!.parents,
        place: { ...places[k]!, root: rows[k]!.root },
        hash: rows[k]!.hash,
        kind: f.fact_kind ?? null,
        content: f.content,
        contradicts: f.contradicts ?? [],
        createdAt: rows[k]!.created_at
      }))
    )
    // The file's writers are their names' first spellings, unless the memory knew them already; a
    // name this import recorded is not sent again (a statement a batch for the same few writers).
    const unnamed = [...new Set(fresh.map((f) => f.written_by))].filter((n) => !options.named.has(n))
    if (unnamed.length > 0) {
      yield* db.write(recordNamesQuery, { names: namePairs(unnamed) })
      for (const n of unnamed) options.named.add(n)
    }
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
    finishedAt: t.last_finish === null ? null : stamp(t.last_finish.created_at),
    procedureId: t.procedure_id ?? null
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

/**
 * A batch of runs (format 2) in one statement, grouped by procedure in file order: each takes the
 * next place of its procedure (runs.ts: `n` and the indexed `slot`) and its procedure's counts go up
 * by the batch's own, read and set in the same statement, so a run recorded meanwhile is not lost
 * and a batch that fails adds nothing. Runs already in the graph by id are left out before
 * (existingRuns), so a rerun with --merge counts none twice.
 */
const createRuns = `UNWIND $procs AS pr MATCH (p:Fact {id: pr.id}) WHERE p.kind = 'procedure' ` +
  `WITH p, pr, coalesce(p.runs_ok, 0) AS s, coalesce(p.runs_failed, 0) AS f ` +
  `SET p.runs_ok = s + pr.ok, p.runs_failed = f + pr.failed ` +
  `WITH p, pr, s + f AS base UNWIND range(0, size(pr.runs) - 1) AS k ` +
  `WITH p, pr.runs[k] AS r, base + k + 1 AS n ` +
  `CREATE (:Run {id: r.id, slot: p.id + '#' + toString(n), procedure_id: p.id, n: n, outcome: r.outcome, ` +
  `failed_step: r.step, note: r.note, ran_by: r.by, created_at: r.at, task_id: r.task, import_id: $importId})` +
  `-[:RAN {created_at: r.at}]->(p) ` +
  `RETURN count(*) AS made`

const existingRuns = `UNWIND $ids AS id MATCH (r:Run {id: id}) RETURN r.id AS id`

const writeRuns = Effect.fn("relay/transfer/writeRuns")(
  function*(db: GraphDatabase["Type"], batch: ReadonlyArray<RunRecord>, counts: ImportCounts, importId: string) {
    const there = new Set((yield* db.read(existingRuns, { ids: batch.map((r) => r.id) }, IdRow)).map((r) => r.id))
    const fresh = batch.filter((r) => !there.has(r.id))
    counts.skipped += batch.length - fresh.length
    if (fresh.length === 0) return
    const byProcedure = new Map<string, Array<RunRecord>>()
    for (const r of fresh) byProcedure.set(r.procedure_id, [...(byProcedure.get(r.procedure_id) ?? []), r])
    const made = yield* db.write(createRuns, {
      procs: [...byProcedure].map(([id, runs]) => ({
        id,
        ok: runs.filter((r) => r.outcome === "success").length,
        failed: runs.filter((r) => r.outcome === "failure").length,
        runs: runs.map((r) => ({
          id: r.id,
          outcome: r.outcome,
          step: r.failed_step,
          note: r.note,
          by: r.ran_by,
          at: stamp(r.created_at),
          task: r.task_id
        }))
      })),
      importId
    }, Schema.Struct({ made: Schema.Number }))
    counts.runs += made[0]?.made ?? 0
  }
)

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
    merge: boolean,
    importId: string
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
        importId,
        merge
      }, Outcome)
      : record.kind === "compatible"
      ? yield* db.write(compatibleQuery, {
        x: record.fact_ids[0],
        y: record.fact_ids[1],
        reason: record.reason,
        resolvedBy: record.resolved_by,
        createdAt,
        importId
      }, Outcome)
      : record.kind === "confirmation"
      ? yield* db.write(confirmationQuery, {
        factId: record.fact_id,
        id: record.id,
        reason: record.reason,
        confirmedBy: record.confirmed_by,
        createdAt,
        importId,
        merge
      }, Outcome)
      : yield* db.write(retractionQuery, {
        factId: record.fact_id,
        id: record.id,
        reason: record.reason,
        retractedBy: record.retracted_by,
        createdAt,
        importId,
        merge
      }, Outcome)
    const outcome = rows[0]
    if (record.kind === "confirmation" && outcome?.existing === false && outcome.rule === null) {
      // The Confirmation's CREATE is confirm.ts's, shared with the tool: the link is set after it.
      yield* db.write(linkConfirmation, { id: record.id, importId })
    }
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

/** Why a statement failed, in words that leak nothing of the driver (errors.ts, DatabaseFailure). */
const causeOf = (e: DatabaseError): string => {
  switch (e.reason) {
    case "timeout":
      return "a statement ran past the database's time limit"
    case "unreachable":
    case "shut_down":
      return "the connection to the database was lost"
    case "busy":
    case "refused":
      return "the database refused the statement (busy, full or read-only)"
    case "newer_schema":
      return "the graph was written by a newer Relay, so this one only reads it"
    default:
      return `the database failed the statement (${e.reason})`
  }
}

/** Where the import was when a statement failed: the lines of the batch or the record. */
const stoppedAt = (what: string) => (e: DatabaseError) =>
  new ImportStopped({
    message: `stopped at ${what}: ${causeOf(e)}. What came before was written; run the same import again ` +
      "with --merge to finish it (what is there is skipped, fork marks and stamps are derived again)"
  })

export interface ImportOptions {
  readonly merge: boolean
  /** The Clock's now when the import began: no stamp of the file moves the graph's clock past it. */
  readonly now: number
  /** The Import record's id: the decisions, retractions and confirmations written carry it. */
  readonly importId: string
  /** Whether a task's approval in the file (needs_approval, decided_by) is taken as one (else it waits for a person again). */
  readonly approvals: boolean
  readonly progress?: (p: ImportProgress) => Effect.Effect<void>
}

/**
 * Writes the records in their order (line numbers for reports start at 2, after the header), then
 * reads every fork's window from the edges (forkWindow.ts), even when a write failed partway: a
 * window the import left wide open is only ever too wide, and this narrows it again.
 */
export const importRecords = (
  db: GraphDatabase["Type"],
  records: ReadonlyArray<MemoryRecord>,
  options: ImportOptions
) =>
  writeRecords(db, records, options).pipe(
    Effect.ensuring(records.length === 0 ? Effect.void : Effect.ignore(rewindForks(db, rewindBatch)))
  )

/** A task whose approval the operator did not vouch for waits for a person again (contract, Export). */
const asApproved = (t: TaskRecord, approvals: boolean): TaskRecord =>
  approvals || !t.needs_approval || t.decided_by === null || t.status !== "open"
    ? t
    : { ...t, status: "awaiting_approval", decided_by: null, decided_at: null }

const writeRecords = Effect.fn("relay/transfer/importRecords")(
  function*(db: GraphDatabase["Type"], records: ReadonlyArray<MemoryRecord>, options: ImportOptions) {
    const { merge, now } = options
    const revisions = revisionsOf(records)
    const counts: ImportCounts = {
      facts: 0,
      decisions: 0,
      compatible: 0,
      retractions: 0,
      confirmations: 0,
      tasks: 0,
      task_notes: 0,
      runs: 0,
      skipped: 0,
      refused: []
    }
    const queue: Array<TaskRecord> = []
    // Written after every fact and edge: stamped by the process's clock, a task may come before a
    // fact it names (importCheck.ts). Write order leaves no trace: an export sorts by stamp.
    const later: Array<readonly [TaskRecord | TaskNoteRecord, number]> = []
    // Likewise runs: stamped by the process's clock, a run may come before its procedure's fact.
    const runs: Array<readonly [RunRecord, number]> = []
    let batch: Array<FactRecord> = []
    let batchLine = 0
    let batchEnd = 0
    let pending: Array<readonly [EdgeRecord, number]> = []
    /** Into an empty graph: the pairs written, so a repeat in the file is skipped. */
    const pairs = new Set<string>()
    /** The writers' names this import recorded. */
    const named = new Set<string>()
    const memory = importMemory(!merge)
    let newest = 0
    const record = (r: DecisionRecord | CompatibleRecord | RetractionRecord | ConfirmationRecord, line: number) =>
      writeRecord(db, r, line, counts, merge, options.importId).pipe(
        Effect.mapError(stoppedAt(`line ${line} (a ${r.kind})`))
      )
    /** Into an empty graph: what follows the batches written since the last statement after them. */
    const after = {
      from: Infinity,
      batches: 0,
      decisions: [] as Array<Record<string, CypherValue>>,
      compatible: [] as Array<Record<string, CypherValue>>,
      retractions: [] as Array<Record<string, CypherValue>>,
      parents: [] as Array<string>,
      ids: [] as Array<string>,
      marks: [] as Array<string>
    }
    const writeAfter = Effect.fn("relay/transfer/writeAfter")(function*(line: number) {
      const what = `lines ${after.from}-${line} (the decisions, compatible records, retractions and fork marks after ${
        after.batches === 1 ? "a batch" : `${after.batches} batches`
      })`
      if (
        after.decisions.length + after.compatible.length + after.retractions.length + after.parents.length +
            after.marks.length > 0
      ) {
        yield* db.write(afterBatchQuery, {
          decisions: after.decisions,
          compatible: after.compatible,
          retractions: after.retractions,
          importId: options.importId,
          parents: [...new Set(after.parents)],
          ids: after.ids,
          marks: after.marks
        }).pipe(Effect.mapError(stoppedAt(what)))
      }
      counts.decisions += after.decisions.length
      counts.compatible += after.compatible.length
      counts.retractions += after.retractions.length
      const decided = after.decisions
      Object.assign(after, {
        from: Infinity,
        batches: 0,
        decisions: [],
        compatible: [],
        retractions: [],
        parents: [],
        ids: [],
        marks: []
      })
      for (const [w, l] of yield* acrossThreads(db, decided, memory).pipe(Effect.mapError(stoppedAt(what)))) {
        yield* joinClusters(db, w, l).pipe(Effect.mapError(stoppedAt(what)))
      }
    })
    const flush = Effect.fn("relay/transfer/flush")(function*(line: number, last = false) {
      if (batch.length > 0) {
        const what = `lines ${batchLine}-${batchEnd} (a batch of ${batch.length} facts)`
        yield* writeFacts(db, batch, counts, { now, merge, named, memory }).pipe(Effect.mapError(stoppedAt(what)))
      }
      // A decision joins its two facts' clusters (threadClusters.ts): one statement each, as union by
      // size is done one pair at a time; a pair one cluster already (a rerun) changes nothing.
      const join = (w: string, l: string, what: string) => joinClusters(db, w, l).pipe(Effect.mapError(stoppedAt(what)))
      if (merge) {
        for (const [r, at] of pending) {
          const done = yield* record(r, at)
          if (r.kind === "decision" && done !== "refused") {
            yield* join(r.winner_id, r.loser_id, `line ${at} (a decision)`)
          }
        }
      } else {
        // Into an empty graph, the batch's records and fork marks join those of the batches before it
        // not yet written (`after`), for one statement every `afterEvery` batches (afterBatchQuery).
        const from = Math.min(batch.length > 0 ? batchLine : Infinity, pending[0]?.[1] ?? Infinity)
        const rows = rowsOf(pending, pairs)
        counts.skipped += rows.repeats
        for (const d of rows.retractions) rememberRetraction(memory, d.f as string, d.at as number)
        const forks = forksOfBatch(memory, batch.map((f) => ({ id: f.id, parents: parentsOf(f) })), revisions)
        after.from = Math.min(after.from, from)
        after.batches++
        after.decisions.push(...rows.decisions)
        after.compatible.push(...rows.compatible)
        after.retractions.push(...rows.retractions)
        after.parents.push(...forks.linked)
        after.ids.push(...batch.map((f) => f.id))
        after.marks.push(...forks.marks)
        if (last || after.batches >= afterEvery || after.decisions.length + after.retractions.length >= factBatchSize) {
          yield* writeAfter(line)
        }
      }
      if (merge && batch.length > 0) {
        const what = `the fork marks of lines ${batchLine}-${batchEnd}`
        yield* markForks(db, batch, revisions).pipe(Effect.mapError(stoppedAt(what)))
      }
      batch = []
      pending = []
      if (options.progress !== undefined) {
        yield* options.progress({ line, lines: records.length + 1, facts: counts.facts })
      }
    })
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!
      const line = i + 2
      newest = Math.max(newest, stamp(r.created_at))
      switch (r.kind) {
        case "fact":
          if (batch.length === 0) batchLine = line
          batchEnd = line
          batch.push(r)
          if (batch.length >= factBatchSize) yield* flush(line)
          break
        case "confirmation":
          // It raises the stamps below its fact as they stand: everything before it goes first.
          yield* flush(line - 1, true)
          yield* record(r, line)
          break
        case "task":
        case "task_note":
          later.push([r, line])
          break
        case "run":
          runs.push([r, line])
          break
        default:
          pending.push([r, line])
          if (pending.length >= factBatchSize) yield* flush(line)
      }
    }
    yield* flush(records.length + 1, true)
    for (let i = 0; i < runs.length; i += factBatchSize) {
      const chunk = runs.slice(i, i + factBatchSize)
      yield* writeRuns(db, chunk.map(([r]) => r), counts, options.importId).pipe(
        Effect.mapError(
          stoppedAt(`lines ${chunk[0]![1]}-${chunk[chunk.length - 1]![1]} (a batch of ${chunk.length} runs)`)
        )
      )
    }
    // A merge keeps a task the graph has as it stands, and leaves out the file's notes on it.
    const kept = new Set<string>()
    for (const [r, line] of later) {
      if (r.kind === "task_note" && kept.has(r.task_id)) {
        counts.skipped++
        continue
      }
      const written = r.kind === "task" ? asApproved(r, options.approvals) : r
      const result = yield* writeRecord(db, written, line, counts, merge, options.importId).pipe(
        Effect.mapError(stoppedAt(`line ${line} (a ${r.kind})`))
      )
      if (written.kind !== "task") continue
      if (result === "existing") kept.add(written.id)
      else if (result === "written" && written.status === "open") queue.push(written)
    }
    const order = queue.map((t) => [queuedAt(t), t.id] as const).sort((a, b) =>
      a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1
    )
    for (let i = 0; i < order.length; i += factBatchSize) {
      yield* db.write(queueTasks, { ids: order.slice(i, i + factBatchSize).map(([, id]) => id) }).pipe(
        Effect.mapError(stoppedAt("the task queue"))
      )
    }
    if (records.length > 0) {
      yield* db.write(moveClock, { newest: Math.min(newest, now) }).pipe(Effect.mapError(stoppedAt("the clock")))
    }
    return counts
  }
)
