import { Effect, Schema } from "effect"
import { staleDefault } from "../../domain/chainPaging.js"
import { normaliseContent } from "../../domain/content.js"
import { contentKey } from "../../domain/contentKey.js"
import { FactNotFound, InvalidInput, MemoryFull, noFactWithId } from "../../domain/errors.js"
import { requestIdMessage } from "../../domain/requestId.js"
import { forkSiblingsShown, revisionMessage } from "../../domain/rules.js"
import type { NewFact, Revision, Saved } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { clockRead, clockVars, clockWrite } from "../database/clock.js"
import { buildsOnClause } from "./buildsOn.js"
import { type GraphCapacity, textBytes } from "./capacity.js"
import { childMap } from "./childMap.js"
import { markFork, settleFork } from "./forkWindow.js"
import { madeStale } from "./madeStale.js"
import { FactFromRow, factMap, stampClause, stampOf } from "./projection.js"
import { inheritedStale, markDependents, neverStale } from "./staleness.js"
import { termClockValues, termCountsClause, termCountsParams } from "./termCounts.js"

/**
 * A fact already stored under this id (a retry with the same request_id) must say the same, in the same
 * session, under the same parent, of the same kind, revising the same fact for the same reason:
 * otherwise no row goes on and nothing is written, and `save` answers invalid_input on request_id.
 * Inside the statement, so two racing calls cannot both pass. (The parent is projected first:
 * FalkorDB 4.16 fails the cached plan of a pattern comprehension inside this WHERE with "Unable to
 * locate a value with alias".) A revision's SUPERSEDES carries the fact's id as its call_id.
 */
const sameOrNew = (carry: ReadonlyArray<string>) =>
  `OPTIONAL MATCH (earlier:Fact {id: $id}) ` +
  `WITH ${[...carry, "earlier"].join(", ")}, ` +
  `head([(earlier)-[:BUILDS_ON]->(earlier_up) | earlier_up.id]) AS earlier_parent, ` +
  `head([(earlier)-[earlier_r:SUPERSEDES]->(earlier_o) WHERE earlier_r.call_id = $id | ` +
  `[earlier_o.id, earlier_r.reason]]) AS earlier_rev ` +
  `WHERE earlier IS NULL OR (earlier.content = $content AND earlier.session_id = $sessionId AND ` +
  `coalesce(earlier.kind, '') = coalesce($kind, '') AND ` +
  `coalesce(earlier_parent, '') = coalesce($parentId, '') AND ` +
  `coalesce(earlier_rev[0], '') = coalesce($supersedes, '') AND coalesce(earlier_rev[1], '') = coalesce($reason, ''))`

/**
 * One statement creates the fact, links its parent and reads the siblings that landed before it,
 * so concurrent writers under one parent each see an exact fork picture. A retried call finds the
 * fact that already landed (`earlier`) and answers it instead of writing it twice.
 *
 * When the new fact forks (a sibling disagrees with it), the parent is marked by a separate
 * `(:ForkMark)-[:MARKS]->(parent)` (made once, by MERGE), so no Fact is ever changed. Its edge keeps
 * the parent's window (forkWindow.ts: since when it is open, when it last closed), which the writes
 * that open or end pairs keep in their statements, so relay_detect_conflicts starts from the parents
 * open at its snapshot instead of every fork; which pairs are open it still decides at read time.
 */
const createFact = (carry: ReadonlyArray<string>) => {
  // A child is stale from when its parent is (staleness.ts), read here, in the statement that links them.
  const child = carry.includes("p")
  const kept = child ? [...carry, "inherited"] : carry
  return `${child ? `WITH ${carry.join(", ")}, ${inheritedStale("p")} AS inherited ` : ""}` +
    `${sameOrNew(kept)} ${stampClause([...kept, "earlier"])} ` +
    // A new fact must fit the graph's capacity (capacity.ts); a retry of one that landed always answers.
    `WHERE earlier IS NOT NULL OR ` +
    `(coalesce(clk.facts, 0) < $maxFacts AND coalesce(clk.bytes, 0) + $bytes <= $maxBytes) ` +
    // Every property in the CREATE: FalkorDB 4.16 makes a SET on a node (even one just created, as
    // MERGE ... ON CREATE SET does) cost in proportion to the graph's nodes, 38 ms of a save at 1M.
    `FOREACH (_ IN CASE WHEN earlier IS NULL THEN [1] ELSE [] END | ` +
    `CREATE (:Fact {id: $id, content: $content, norm: $norm, hash: $hash, written_by: $writtenBy, ` +
    `session_id: $sessionId, kind: $kind, created_at: ts, stale_at: ${child ? "inherited" : neverStale}, ` +
    `terms: $terms})) ` +
    clockWrite({
      last: "ts",
      facts: "coalesce(clk.facts, 0) + 1",
      bytes: "coalesce(clk.bytes, 0) + $bytes",
      ...termClockValues
    }, "earlier IS NULL") +
    `WITH ${[...kept, clockVars, "ts"].join(", ")} MATCH (f:Fact {id: $id})`
}

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

/** The stamp a revision marks the dependents with: none on a retry (its first try marked them; again would undo a confirmation since). */
const revisionStamp = "CASE WHEN made THEN f.created_at END"

const recordRevision = `MERGE (f)-[rv:SUPERSEDES]->(o) ` +
  `ON CREATE SET rv.reason = $reason, rv.resolved_by = $writtenBy, rv.created_at = f.created_at, rv.call_id = $id `

const saveRoot = (revision: boolean) =>
  revision ?
    `${revisedMatch(false)}${createFact(["o"])} ${termCountsClause}WITH f, o, f.created_at = ts AS made ` +
    `${recordRevision}${markDependents("o", revisionStamp, ["f", "o", "made"])}` +
    `RETURN ${factMap("f")} AS fact, 0 AS siblingsTotal, [] AS siblings, [] AS duplicate, ` +
    `${factMap("o")} AS revised` :
    `${createFact([])} ${termCountsClause}RETURN ${
      factMap("f")
    } AS fact, 0 AS siblingsTotal, [] AS siblings, [] AS duplicate, ` +
    `null AS revised`

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
    `OPTIONAL MATCH (p)<-[:BUILDS_ON]-(s:Fact) WHERE s.created_at < f.created_at AND indegree(s, 'RETRACTS') = 0` +
    `${revision ? " AND s <> o" : ""} ` +
    `WITH f, ${keep}, made, s ORDER BY s.created_at ` +
    // Node references and their norms only: just the shown siblings and the duplicate are mapped.
    `WITH f, ${keep}, made, collect(s) AS siblings ` +
    // A detail disagrees with nothing, and nothing disagrees with a detail (domain/model/conflicts.ts).
    `WITH f, ${keep}, made, [x IN siblings WHERE x.norm <> $norm AND coalesce($kind, '') <> 'detail' AND ` +
    `coalesce(x.kind, '') <> 'detail'] AS differing, ` +
    `[x IN siblings WHERE x.norm = $norm][0..1] AS same ` +
    markFork("differing", "made") +
    // The fact a revision supersedes leaves its parent's pairs: that parent's window may end here.
    `${
      revision ?
        `WITH f, ${keep}, made, differing, same OPTIONAL MATCH (o)-[:BUILDS_ON]->(q) ` +
        settleFork("q", "f.created_at", "made", ["f", ...carry, "made", "differing", "same"]) :
        ""
    }` +
    `WITH f, ${revision ? "o, " : ""}differing, same, ${factMap("p")} AS parent ` +
    `RETURN ${factMap("f")} AS fact, size(differing) AS siblingsTotal, ` +
    `[x IN differing[-$shown..] | ${childMap("x", "parent")}] AS siblings, [x IN same | ${
      childMap("x", "parent")
    }] AS duplicate, ${revision ? factMap("o") : "null"} AS revised`
}

export const saveQueries = {
  root: saveRoot(false),
  child: saveChild(false),
  revisedRoot: saveRoot(true),
  revisedChild: saveChild(true)
}

const Row = Schema.Struct({
  fact: FactFromRow,
  siblingsTotal: Schema.Number,
  siblings: Schema.Array(FactFromRow),
  duplicate: Schema.Array(FactFromRow),
  revised: Schema.NullOr(FactFromRow)
})

const DiagnosisRow = Schema.Struct({
  taken: Schema.Boolean,
  parent: Schema.Boolean,
  revised: Schema.Boolean,
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
      `OPTIONAL MATCH (p:Fact {id: $parentId}) WITH taken, count(p) > 0 AS parent ` +
      `OPTIONAL MATCH (o:Fact {id: $supersedes}) WITH taken, parent, count(o) > 0 AS revised ` +
      `${clockRead(["taken", "parent", "revised"])}` +
      `RETURN taken, parent, revised, coalesce(clk.facts, 0) AS facts, coalesce(clk.bytes, 0) AS bytes`,
    { id: input.id, parentId: input.parentId, supersedes: input.revises?.id ?? null },
    DiagnosisRow
  ).pipe(
    Effect.flatMap((rows): Effect.Effect<never, InvalidInput | FactNotFound | MemoryFull> => {
      const d = rows[0] ?? { taken: false, parent: false, revised: false, facts: 0, bytes: 0 }
      return d.taken
        ? Effect.fail(new InvalidInput({ message: requestIdMessage.save }))
        : d.facts >= capacity.facts || d.bytes + textBytes(input.content) > capacity.bytes
        ? Effect.fail(new MemoryFull({ message: fullMessage(capacity, d.facts) }))
        : input.revises !== null && input.revises !== undefined && !d.revised
        ? Effect.fail(noFactWithId("supersedes", input.revises.id))
        : !d.parent && input.parentId !== null
        ? Effect.fail(noFactWithId("parent_fact_id", input.parentId))
        : Effect.fail(
          new InvalidInput({ message: revisionMessage.parent_builds_on_revised })
        )
    })
  )

/** The parent of the fact a revision supersedes (BUILDS_ON never changes, so reading it first is safe). */
const parentOf = (db: GraphDatabase["Type"], id: string) =>
  db.read(
    `MATCH (o:Fact {id: $id}) RETURN head([(o)-[:BUILDS_ON]->(o_up) | o_up.id]) AS parent`,
    { id },
    Schema.Struct({ parent: Schema.NullOr(Schema.String) })
  ).pipe(
    Effect.flatMap((rows) =>
      rows[0] === undefined ? Effect.fail(noFactWithId("supersedes", id)) : Effect.succeed(rows[0].parent)
    )
  )

export const save = Effect.fn("relay/factStore/save")(
  function*(db: GraphDatabase["Type"], capacity: GraphCapacity, now: number, input: NewFact) {
    const norm = normaliseContent(input.content)
    const revises = input.revises ?? null
    // A revision goes beside the fact it supersedes unless the caller named a parent.
    const parentId = revises !== null && input.parentId === null ? yield* parentOf(db, revises.id) : input.parentId
    const query = revises === null
      ? (parentId === null ? saveQueries.root : saveQueries.child)
      : (parentId === null ? saveQueries.revisedRoot : saveQueries.revisedChild)
    const rows = yield* db.write(query, {
      id: input.id,
      content: input.content,
      norm,
      hash: contentKey(norm),
      writtenBy: input.writtenBy,
      sessionId: input.sessionId,
      parentId,
      kind: input.kind ?? null,
      supersedes: revises?.id ?? null,
      reason: revises?.reason ?? null,
      shown: forkSiblingsShown,
      now,
      bytes: textBytes(input.content),
      maxFacts: capacity.facts,
      maxBytes: capacity.bytes,
      ...termCountsParams(input.content)
    }, Row)
    const row = rows[0]
    if (row === undefined) return yield* noRow(db, { ...input, parentId }, capacity)
    const revision = revises === null || row.revised === null ? null : yield* Effect.map(
      madeStale(
        db,
        revises.id,
        stampOf(row.fact),
        { limit: revises.staleLimit ?? staleDefault, cursor: null },
        "supersedes"
      ),
      (made): Revision => ({
        fact: row.revised!,
        reason: revises.reason,
        stale: made.items,
        staleTotal: made.total,
        staleNextCursor: made.next_cursor
      })
    )
    const saved: Saved = {
      fact: row.fact,
      forkSiblings: row.siblings,
      siblingsTotal: row.siblingsTotal,
      duplicateOf: row.duplicate[0] ?? null,
      revision
    }
    return saved
  }
)
