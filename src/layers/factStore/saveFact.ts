import { Effect, Schema } from "effect"
import { normaliseContent } from "../../domain/content.js"
import { FactNotFound, InvalidInput, noFactWithId } from "../../domain/errors.js"
import { requestIdMessage } from "../../domain/requestId.js"
import { forkSiblingsShown } from "../../domain/rules.js"
import type { NewFact, Saved } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { childMap } from "./childMap.js"
import { FactFromRow, factMap, stampClause } from "./projection.js"
import { termCountsClause, termCountsParams } from "./termCounts.js"

/**
 * A fact already stored under this id (a retry with the same request_id) must say the same, in the same
 * session, under the same parent, of the same kind: otherwise no row goes on and nothing is written, and `save`
 * answers invalid_input on request_id. Inside the statement, so two racing calls cannot both pass.
 * (The parent is projected first: FalkorDB 4.16 fails the cached plan of a pattern comprehension
 * inside this WHERE with "Unable to locate a value with alias".)
 */
const sameOrNew = (carry: ReadonlyArray<string>) =>
  `OPTIONAL MATCH (earlier:Fact {id: $id}) ` +
  `WITH ${
    [...carry, "earlier"].join(", ")
  }, head([(earlier)-[:BUILDS_ON]->(earlier_up) | earlier_up.id]) AS earlier_parent ` +
  `WHERE earlier IS NULL OR (earlier.content = $content AND earlier.session_id = $sessionId AND ` +
  `coalesce(earlier.kind, '') = coalesce($kind, '') AND ` +
  `coalesce(earlier_parent, '') = coalesce($parentId, ''))`

/**
 * One statement creates the fact, links its parent and reads the siblings that landed before it,
 * so concurrent writers under one parent each see an exact fork picture. MERGE on the id makes a
 * retried call return the fact that already landed instead of writing it twice.
 *
 * When the new fact forks (a sibling says something else), the parent is marked by a separate
 * `(:ForkMark)-[:MARKS]->(parent)` (made once, by MERGE), so no Fact is ever changed. It records
 * structure, not a status: facts are never deleted, so a fork once made stays a fork pair forever,
 * while whether it is still open is computed from SUPERSEDES edges at read time. It lets
 * relay_detect_conflicts start from the forked parents instead of scanning every fact.
 */
const createFact = (carry: ReadonlyArray<string>) =>
  `${sameOrNew(carry)} ${stampClause(carry)} ` +
  `MERGE (f:Fact {id: $id}) ` +
  `ON CREATE SET f.content = $content, f.norm = $norm, f.written_by = $writtenBy, ` +
  `f.session_id = $sessionId, f.kind = $kind, f.created_at = ts, clk.last = ts`

const saveRoot = `${createFact([])} ${termCountsClause}RETURN ${
  factMap("f")
} AS fact, 0 AS siblingsTotal, [] AS siblings, [] AS duplicate`

const saveChild = `MATCH (p:Fact {id: $parentId}) ${createFact(["p"])} ${termCountsClause}` +
  `MERGE (f)-[:BUILDS_ON]->(p) ` +
  `WITH f, p ` +
  // A retracted sibling was withdrawn as wrong: neither a fact this one repeats nor one it differs from.
  `OPTIONAL MATCH (p)<-[:BUILDS_ON]-(s:Fact) WHERE s.created_at < f.created_at AND indegree(s, 'RETRACTS') = 0 ` +
  `WITH f, p, s ORDER BY s.created_at ` +
  // Node references and their norms only: just the shown siblings and the duplicate are mapped.
  `WITH f, p, collect(s) AS siblings ` +
  // A detail disagrees with nothing, and nothing disagrees with a detail (domain/model/conflicts.ts).
  `WITH f, p, [x IN siblings WHERE x.norm <> $norm AND coalesce($kind, '') <> 'detail' AND coalesce(x.kind, '') <> 'detail'] AS differing, ` +
  `[x IN siblings WHERE x.norm = $norm][0..1] AS same ` +
  `FOREACH (_ IN CASE WHEN size(differing) > 0 THEN [1] ELSE [] END | MERGE (:ForkMark)-[:MARKS]->(p)) ` +
  `WITH f, differing, same, ${factMap("p")} AS parent ` +
  `RETURN ${factMap("f")} AS fact, size(differing) AS siblingsTotal, ` +
  `[x IN differing[-$shown..] | ${childMap("x", "parent")}] AS siblings, [x IN same | ${
    childMap("x", "parent")
  }] AS duplicate`

const Row = Schema.Struct({
  fact: FactFromRow,
  siblingsTotal: Schema.Number,
  siblings: Schema.Array(FactFromRow),
  duplicate: Schema.Array(FactFromRow)
})

/** No row: the id is taken by a different fact (see `sameOrNew`), or the parent does not exist. */
const noRow = (db: GraphDatabase["Type"], input: NewFact) =>
  db.read(`MATCH (f:Fact {id: $id}) RETURN count(f) AS n`, { id: input.id }, Schema.Struct({ n: Schema.Number })).pipe(
    Effect.flatMap((rows): Effect.Effect<never, InvalidInput | FactNotFound> =>
      (rows[0]?.n ?? 0) > 0
        ? Effect.fail(new InvalidInput({ message: requestIdMessage.save }))
        : Effect.fail(noFactWithId("parent_fact_id", input.parentId))
    )
  )

export const save = Effect.fn("relay/factStore/save")(
  function*(db: GraphDatabase["Type"], now: number, input: NewFact) {
    const norm = normaliseContent(input.content)
    const rows = yield* db.write(input.parentId === null ? saveRoot : saveChild, {
      id: input.id,
      content: input.content,
      norm,
      writtenBy: input.writtenBy,
      sessionId: input.sessionId,
      parentId: input.parentId,
      kind: input.kind ?? null,
      shown: forkSiblingsShown,
      now,
      ...termCountsParams(input.content)
    }, Row)
    const row = rows[0]
    if (row === undefined) return yield* noRow(db, input)
    const saved: Saved = {
      fact: row.fact,
      forkSiblings: row.siblings,
      siblingsTotal: row.siblingsTotal,
      duplicateOf: row.duplicate[0] ?? null
    }
    return saved
  }
)
