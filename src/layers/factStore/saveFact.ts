import { Effect, Schema } from "effect"
import { staleDefault } from "../../domain/chainPaging.js"
import { FactNotFound, InvalidInput, MemoryFull, noFactWithId } from "../../domain/errors.js"
import type { Fact } from "../../domain/fact.js"
import { forkTermsOf } from "../../domain/model/conflicts.js"
import { requestIdMessage } from "../../domain/requestId.js"
import { buildsOnMessage, comparedShown, forkSiblingsShown, revisionMessage } from "../../domain/rules.js"
import type { NewFact, Revises, Revision, Saved } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { clockRead } from "../database/clock.js"
import { buildsOnClause } from "./buildsOn.js"
import { type GraphCapacity, textBytes } from "./capacity.js"
import { childMap } from "./childMap.js"
import { createFact, recordRevision, revisionStamp } from "./createFact.js"
import { factParams } from "./factNode.js"
import { settleFork } from "./forkWindow.js"
import type { BatchForm, GroupCommit, ReadBatcher } from "./groupCommit.js"
import { suggestLinks } from "./links.js"
import { madeStale } from "./madeStale.js"
import type { MergeGate } from "./mergeGate.js"
import { FactFromRow, factMap, stampOf } from "./projection.js"
import { batchOfSave, batchTerms } from "./saveBatch.js"
import { mergeQueries } from "./saveMerge.js"
import { siblingPicture } from "./siblingPicture.js"
import { markDependents } from "./staleness.js"
import { checkStillHolds, confirmStillHolds } from "./stillHolds.js"
import { termCountsClause, termCountsParams } from "./termCounts.js"
import { joinClusters } from "./threadClusters.js"
import { vectorOf, type Vectors } from "./vectors.js"
import { mergeRounds } from "./walkDown.js"

/**
 * A revision (domain/model/revision.ts) matches the fact it supersedes as `o` and, in the same
 * statement as the save, records `(f)-[:SUPERSEDES]->(o)` stamped as the fact is, so no reader sees
 * one without the other. Under a parent the parent must not be `o` nor build on it (a single-parent
 * chain: one walk up, linear in the depth); no row otherwise, and nothing written.
 */
const revisedMatch = (child: boolean) =>
  child ?
    `MATCH (p:Fact {id: $parentId}), (o:Fact {id: $supersedes}) ` +
    `${buildsOnClause("p", "o", "under", ["p", "o"])}WITH p, o WHERE p <> o AND NOT under ` :
    `MATCH (o:Fact {id: $supersedes}) `

const saveRoot = (revision: boolean) =>
  revision ?
    `${revisedMatch(false)}${createFact(["o"])} ${termCountsClause}WITH f, o, f.created_at = ts AS made ` +
    `${recordRevision}${markDependents("o", revisionStamp, ["f", "o", "made"])}` +
    `RETURN ${factMap("f")} AS fact, 0 AS siblingsTotal, [] AS siblings, [] AS duplicate, ` +
    `${factMap("o")} AS revised, 0 AS comparedTotal, [] AS compared` :
    `${createFact([])} ${termCountsClause}RETURN ${
      factMap("f")
    } AS fact, 0 AS siblingsTotal, [] AS siblings, [] AS duplicate, ` +
    `null AS revised, 0 AS comparedTotal, [] AS compared`

const saveChild = (revision: boolean) => {
  const carry = revision ? ["p", "o"] : ["p"]
  const keep = carry.join(", ")
  return `${revision ? revisedMatch(true) : "MATCH (p:Fact {id: $parentId}) "}${
    createFact(carry)
  } ${termCountsClause}` +
    `MERGE (f)-[:BUILDS_ON]->(p) ` +
    `WITH f, ${keep}, f.created_at = ts AS made ${
      revision
        ? `${recordRevision}${markDependents("o", revisionStamp, ["f", ...carry, "made"])}WITH f, ${keep}, made `
        : ""
    }` +
    // A retracted sibling was withdrawn as wrong: neither a fact this one repeats nor one it differs
    // from; the fact a revision supersedes is decided, not open.
    `OPTIONAL MATCH (p)<-[:BUILDS_ON|ALSO_ON]-(s:Fact) WHERE s.created_at < f.created_at ` +
    `WITH f, ${keep}, made, s ORDER BY s.created_at ` +
    // Node references and their norms only: just the shown siblings and the duplicate are mapped.
    `WITH f, ${keep}, made, collect(s) AS every ` +
    siblingPicture(`f, ${keep}, made`, revision) +
    // The fact a revision supersedes leaves its parent's pairs: that parent's window may end here.
    `${
      revision ?
        // Every parent of o: a merge may be revised under one parent.
        `WITH f, ${keep}, made, differing, same, passed OPTIONAL MATCH (o)-[:BUILDS_ON|ALSO_ON]->(q) ` +
        settleFork("q", "f.created_at", "made", ["f", ...carry, "made", "differing", "same", "passed"]) +
        `WITH f, ${keep}, made, differing, same, passed, count(*) AS settled ` :
        ""
    }` +
    `WITH f, ${revision ? "o, " : ""}differing, same, passed, ${factMap("p")} AS parent ` +
    `RETURN ${factMap("f")} AS fact, size(differing) AS siblingsTotal, ` +
    `[x IN differing[-$shown..] | ${childMap("x", "parent")}] AS siblings, [x IN same | ${
      childMap("x", "parent")
    }] AS duplicate, ${revision ? factMap("o") : "null"} AS revised, size(passed) AS comparedTotal, ` +
    `[x IN passed[-$comparedShown..] | ${childMap("x", "parent")}] AS compared`
}

export const saveQueries = {
  root: saveRoot(false),
  child: saveChild(false),
  revisedRoot: saveRoot(true),
  revisedChild: saveChild(true)
}

/** The plain saves' statements go together (saveBatch.ts); a revision or a merge runs alone. */
export const saveBatchForms = (): ReadonlyMap<string, BatchForm> => {
  const columns = Object.keys(Row.fields)
  const form = (lone: string): BatchForm => ({
    cypher: batchOfSave(lone, columns),
    params: (rows) => ({
      batch: rows,
      gc_terms: batchTerms(rows.map((r) => r["distinctTerms"] as ReadonlyArray<string>))
    })
  })
  return new Map([[saveQueries.root, form(saveQueries.root)], [saveQueries.child, form(saveQueries.child)]])
}

const Row = Schema.Struct({
  fact: FactFromRow,
  siblingsTotal: Schema.Number,
  siblings: Schema.Array(FactFromRow),
  duplicate: Schema.Array(FactFromRow),
  revised: Schema.NullOr(FactFromRow),
  comparedTotal: Schema.Number,
  compared: Schema.Array(FactFromRow)
})

const Report = Schema.Struct({
  parent: Schema.String,
  total: Schema.Number,
  siblings: Schema.Array(FactFromRow),
  duplicate: Schema.Array(FactFromRow),
  comparedTotal: Schema.Number,
  compared: Schema.Array(FactFromRow)
})

const MergeRow = Schema.Struct({
  fact: FactFromRow,
  reports: Schema.Array(Report),
  revised: Schema.NullOr(FactFromRow)
})

const DiagnosisRow = Schema.Struct({
  taken: Schema.Boolean,
  parent: Schema.Boolean,
  revised: Schema.Boolean,
  found: Schema.Array(Schema.String),
  firstDepth: Schema.Number,
  alsoDepth: Schema.Number,
  facts: Schema.Number,
  bytes: Schema.Number
})

const fullMessage = (capacity: GraphCapacity, facts: number) =>
  facts >= capacity.facts
    ? `this memory holds ${capacity.facts} facts, the most its operator allows (RELAY_MAX_FACTS); nothing was written`
    : `this fact's text does not fit: the memory's texts may take ${capacity.bytes} bytes in all ` +
      `(RELAY_MAX_CONTENT_BYTES); nothing was written`

/**
 * No row: the id is taken by a different fact (see `sameOrNew`), the memory is full, the parent or
 * the revised fact does not exist, or the parent builds on the revised fact.
 */
const noRow = (db: GraphDatabase["Type"], input: NewFact, capacity: GraphCapacity) =>
  db.read(
    `OPTIONAL MATCH (f:Fact {id: $id}) WITH count(f) > 0 AS taken ` +
      `OPTIONAL MATCH (p:Fact {id: $parentId}) WITH taken, count(p) > 0 AS parent, ` +
      `max(coalesce(p.merge_depth, 0)) AS firstDepth ` +
      `OPTIONAL MATCH (o:Fact {id: $supersedes}) WITH taken, parent, firstDepth, count(o) > 0 AS revised ` +
      `UNWIND CASE WHEN size($also) = 0 THEN [null] ELSE $also END AS aid OPTIONAL MATCH (a:Fact {id: aid}) ` +
      `WITH taken, parent, revised, firstDepth, collect(a.id) AS found, ` +
      `max(coalesce(a.merge_depth, 0) + 1) AS alsoDepth ` +
      `${clockRead(["taken", "parent", "revised", "found", "firstDepth", "alsoDepth"])}` +
      `RETURN taken, parent, revised, found, coalesce(firstDepth, 0) AS firstDepth, coalesce(alsoDepth, 0) AS alsoDepth, ` +
      `coalesce(clk.facts, 0) AS facts, coalesce(clk.bytes, 0) AS bytes`,
    { id: input.id, parentId: input.parentId, supersedes: input.revises?.id ?? null, also: input.alsoOn ?? [] },
    DiagnosisRow
  ).pipe(
    Effect.flatMap((rows): Effect.Effect<never, InvalidInput | FactNotFound | MemoryFull> => {
      const d = rows[0] ??
        { taken: false, parent: false, revised: false, found: [], firstDepth: 0, alsoDepth: 0, facts: 0, bytes: 0 }
      const also = input.alsoOn ?? []
      const missing = also.find((id) => !d.found.includes(id))
      // Named in builds_on: its errors name builds_on.
      const field = also.length > 0 ? "builds_on" : "parent_fact_id"
      return d.taken
        ? Effect.fail(new InvalidInput({ message: requestIdMessage.save }))
        : d.facts >= capacity.facts || d.bytes + textBytes(input.content) > capacity.bytes
        ? Effect.fail(new MemoryFull({ message: fullMessage(capacity, d.facts) }))
        : input.revises !== null && input.revises !== undefined && !d.revised
        ? Effect.fail(noFactWithId("supersedes", input.revises.id))
        : !d.parent && input.parentId !== null
        ? Effect.fail(noFactWithId(field, input.parentId))
        : missing !== undefined
        ? Effect.fail(noFactWithId("builds_on", missing))
        : also.length > 0 && Math.max(d.firstDepth + 1, d.alsoDepth) > mergeRounds
        ? Effect.fail(new InvalidInput({ message: buildsOnMessage.too_deep }))
        : Effect.fail(
          new InvalidInput({
            message: also.length > 0 ? revisionMessage.builds_on_revised : revisionMessage.parent_builds_on_revised
          })
        )
    })
  )

/**
 * The parents of the fact a revision supersedes, first parent first (edges never change, so reading
 * them first is safe); a revision keeps them all (domain/model/revision.ts).
 */
const parentsOfRevised = (db: GraphDatabase["Type"], id: string) =>
  db.read(
    `MATCH (o:Fact {id: $id}) RETURN head([(o)-[:BUILDS_ON]->(o_up) | o_up.id]) AS parent, ` +
      `[(o)-[:ALSO_ON]->(o_also) | o_also.id] AS also`,
    { id },
    Schema.Struct({ parent: Schema.NullOr(Schema.String), also: Schema.Array(Schema.String) })
  ).pipe(
    Effect.flatMap((rows) =>
      rows[0] === undefined ? Effect.fail(noFactWithId("supersedes", id)) : Effect.succeed(rows[0])
    )
  )

const ContradictsRow = Schema.Struct({ id: Schema.String, found: Schema.Boolean, parents: Schema.Array(Schema.String) })

/**
 * `contradicts` names siblings: each must exist and share a parent with the new fact (edges never
 * change, so reading them before the save is safe). Only siblings fork (domain/model/conflicts.ts).
 */
const checkContradicts = (db: GraphDatabase["Type"], ids: ReadonlyArray<string>, parents: ReadonlyArray<string>) =>
  db.read(
    `UNWIND $ids AS cid OPTIONAL MATCH (c:Fact {id: cid}) ` +
      `RETURN cid AS id, c IS NOT NULL AS found, CASE WHEN c IS NULL THEN [] ELSE [(c)-[:BUILDS_ON|ALSO_ON]->(q) | q.id] END AS parents`,
    { ids },
    ContradictsRow
  ).pipe(
    Effect.flatMap((rows): Effect.Effect<void, InvalidInput | FactNotFound> => {
      const missing = rows.find((r) => !r.found)
      if (missing !== undefined) return Effect.fail(noFactWithId("contradicts", missing.id))
      const stranger = rows.find((r) => !r.parents.some((q) => parents.includes(q)))
      return stranger === undefined ? Effect.void : Effect.fail(
        new InvalidInput({
          message: `contradicts: ${stranger.id} is not a sibling of this fact (no parent in common); ` +
            "only siblings are in conflict: to replace a fact elsewhere use supersedes and reason"
        })
      )
    })
  )

/**
 * What a revision reports: the fact it superseded, the dependents it named in still_holds (confirmed
 * in statements of their own first, stillHolds.ts) and, paged, what it made stale and they did not keep.
 */
const revisionOf = Effect.fn("relay/factStore/revisionOf")(function*(
  db: GraphDatabase["Type"],
  gate: MergeGate,
  now: number,
  input: NewFact & { readonly revises: Revises },
  held: ReadonlyArray<string>,
  revised: Fact,
  stamp: number
) {
  const revises = input.revises
  const kept = held.length === 0 ?
    { facts: [], until: stamp } :
    yield* confirmStillHolds(db, now, { factId: input.id, reason: revises.reason, writtenBy: input.writtenBy }, held)
  const limit = revises.staleLimit ?? staleDefault
  const made = yield* madeStale(db, gate, revises.id, stamp, { limit, cursor: null }, "supersedes", kept.until)
  const revision: Revision = {
    fact: revised,
    reason: revises.reason,
    stale: made.items,
    staleTotal: made.total,
    staleNextCursor: made.next_cursor,
    stillHolds: kept.facts
  }
  return revision
})

export const save = Effect.fn("relay/factStore/save")(
  function*(
    db: GraphDatabase["Type"],
    commit: GroupCommit,
    reads: ReadBatcher,
    gate: MergeGate,
    capacity: GraphCapacity,
    vectors: Vectors | null,
    now: number,
    input: NewFact
  ) {
    const contradicts = [...new Set(input.contradicts ?? [])].sort()
    const revises = input.revises ?? null
    // A revision goes beside the fact it supersedes unless the caller named a parent.
    const beside = revises !== null && input.parentId === null ? yield* parentsOfRevised(db, revises.id) : null
    const parentId = beside === null ? input.parentId : beside.parent
    const alsoOn = parentId === null ? [] : beside === null ? input.alsoOn ?? [] : beside.also
    if (contradicts.length > 0) yield* checkContradicts(db, contradicts, parentId === null ? [] : [parentId, ...alsoOn])
    const held = revises === null || (revises.stillHolds ?? []).length === 0 ?
      [] :
      yield* checkStillHolds(db, input.id, revises.id, revises.stillHolds ?? [])
    const merged = alsoOn.length > 0
    const query = merged
      ? (revises === null ? mergeQueries.merged : mergeQueries.revisedMerged)
      : revises === null
      ? (parentId === null ? saveQueries.root : saveQueries.child)
      : (parentId === null ? saveQueries.revisedRoot : saveQueries.revisedChild)
    const fact = factParams({
      id: input.id,
      content: input.content,
      writtenBy: input.writtenBy,
      sessionId: input.sessionId,
      kind: input.kind ?? null,
      contradicts: contradicts.length === 0 ? null : contradicts
    })
    // Before the statement and outside it, bounded by its timeout (embeddings.ts): null saves without one.
    const embedding = vectors === null ? null : yield* vectorOf(db, vectors, input.content)
    const params = {
      ...fact,
      embedding: embedding === null ? null : [...embedding],
      parentId,
      parents: parentId === null ? [] : [parentId, ...alsoOn],
      alsoSorted: [...alsoOn].sort(),
      forkTerms: forkTermsOf(input.content),
      comparedShown,
      supersedes: revises?.id ?? null,
      reason: revises?.reason ?? null,
      shown: forkSiblingsShown,
      now,
      bytes: textBytes(input.content),
      maxFacts: capacity.facts,
      maxBytes: capacity.bytes,
      ...termCountsParams(fact.terms)
    }
    // Through the store's group commit (groupCommit.ts): alone, or in one statement with saves that queued meanwhile.
    const row = merged
      ? (yield* commit.write(query, params, MergeRow))[0]
      : (yield* commit.write(query, params, Row))[0]
    if (row === undefined) return yield* noRow(db, { ...input, parentId, alsoOn }, capacity)
    // A revision's SUPERSEDES joins its clusters (threadClusters.ts); again on a retry, which heals a lost one.
    if (row.revised !== null) yield* joinClusters(db, row.fact.id, row.revised.id)
    const revision = revises === null || row.revised === null ?
      null :
      yield* revisionOf(db, gate, now, { ...input, revises }, held, row.revised, stampOf(row.fact))
    const under = "reports" in row ?
      row.reports.map((r) => ({
        parentId: r.parent,
        forkSiblings: r.siblings,
        siblingsTotal: r.total,
        duplicateOf: r.duplicate[0] ?? null,
        compared: r.compared,
        comparedTotal: r.comparedTotal
      })) :
      [{
        parentId: parentId ?? "",
        forkSiblings: row.siblings,
        siblingsTotal: row.siblingsTotal,
        duplicateOf: row.duplicate[0] ?? null,
        compared: row.compared,
        comparedTotal: row.comparedTotal
      }]
    // A read of its own after the statement (links.ts), so batches of the save statement stay as they are.
    const links = yield* suggestLinks(
      db,
      reads,
      row.fact,
      embedding === null || vectors === null ? null : { vector: embedding, strong: vectors.embedder.settings.strong }
    )
    // The reports come back per parent in no set order: the first parent's is the fork and duplicate_of.
    const first = under.find((u) => u.parentId === parentId) ?? under[0]!
    const saved: Saved = {
      fact: row.fact,
      forkSiblings: first.forkSiblings,
      siblingsTotal: first.siblingsTotal,
      duplicateOf: first.duplicateOf,
      revision,
      alsoUnder: alsoOn.flatMap((id) =>
        under.filter((u) => u.parentId === id && (u.siblingsTotal > 0 || u.duplicateOf !== null)).map((u) => ({
          parentId: u.parentId,
          forkSiblings: u.forkSiblings,
          siblingsTotal: u.siblingsTotal,
          duplicateOf: u.duplicateOf
        }))
      ),
      compared: first.compared,
      comparedTotal: first.comparedTotal,
      links
    }
    return saved
  }
)
