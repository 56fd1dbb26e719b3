import { Effect, Schema } from "effect"
import { chainBudgetBytes, type ContextCursor, type ImpactCursor, type PageRequest } from "../../domain/chainPaging.js"
import { after, type ImpactKey, impactKey, placeDescendants } from "../../domain/descendants.js"
import { type DatabaseError, FactNotFound } from "../../domain/errors.js"
import type { Dependent, Fact } from "../../domain/fact.js"
import { currentBudget, page } from "../../domain/paging.js"
import type { CurrentStateOptions, Page } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import {
  ChainFactFromRow,
  FactColumn,
  factFields,
  factMap,
  ownStatusAsOf,
  stampOf,
  statusFrom,
  statusOf,
  storedFields,
  tainting,
  withParent
} from "./projection.js"

const notFound = (field: string, id: string) => new FactNotFound({ message: `${field}: no fact with id ${id}` })

/**
 * One page of the BUILDS_ON chain of x, read from x toward the root: the `$take` nearest ancestors
 * (x itself counts) older than `$before`, newest first. No path is materialised (a path per row made
 * the old query quadratic: 6.4 s at 3,000 deep) and no fact walks to the root on its own:
 * - a parent is always stamped before its child (saveFact stamps inside the statement that links
 *   the new fact to its existing parent), so along a chain created_at orders the facts, and a page
 *   is a LIMIT over one walk;
 * - a fact on the chain is stale iff a superseded or retracted fact sits above it, i.e. iff the
 *   oldest such strict ancestor of x is older than it: one more walk finds that stamp.
 * Cost: two walks up x's chain (linear in its depth) and `$take` facts mapped.
 */
export const contextQuery = `MATCH (x:Fact {id: $id}) ` +
  `OPTIONAL MATCH (x)-[:BUILDS_ON*1..]->(s) WHERE ${tainting("s")} ` +
  `WITH x, min(s.created_at) AS firstSuperseded ` +
  `OPTIONAL MATCH (x)-[:BUILDS_ON*0..]->(a) WHERE $before IS NULL OR a.created_at < $before ` +
  `WITH a, firstSuperseded ORDER BY a.created_at DESC LIMIT $take ` +
  `RETURN CASE WHEN a IS NULL THEN NULL ELSE {${factFields("a")}, superseded: indegree(a, 'SUPERSEDES') > 0, ` +
  `retracted: indegree(a, 'RETRACTS') > 0, ` +
  `stale: firstSuperseded IS NOT NULL AND firstSuperseded < a.created_at} END AS fact`

/**
 * The same page as the memory stood at `$asOf`: x must have been saved by then (its ancestors are
 * older still), and only decisions and retractions stamped by then count.
 */
export const contextAsOfQuery = `MATCH (x:Fact {id: $id}) WHERE x.created_at <= $asOf ` +
  `OPTIONAL MATCH (x)-[:BUILDS_ON*1..]->(s)<-[st:SUPERSEDES|RETRACTS]-() WHERE st.created_at <= $asOf ` +
  `WITH x, min(s.created_at) AS firstSuperseded ` +
  `OPTIONAL MATCH (x)-[:BUILDS_ON*0..]->(a) WHERE $before IS NULL OR a.created_at < $before ` +
  `WITH a, firstSuperseded ORDER BY a.created_at DESC LIMIT $take ` +
  `RETURN CASE WHEN a IS NULL THEN NULL ELSE {${factFields("a")}, ${ownStatusAsOf("a")}, ` +
  `stale: firstSuperseded IS NOT NULL AND firstSuperseded < a.created_at} END AS fact`

/** A row of the walk: null when no fact of the chain is older than the cursor (the OPTIONAL MATCH found none). */
const ChainRow = Schema.Struct({ fact: Schema.NullOr(ChainFactFromRow) })

export const context = (
  db: GraphDatabase["Type"],
  id: string,
  request: PageRequest<ContextCursor>,
  asOf: number | null = null,
  field = "fact_id"
) =>
  db.read(asOf === null ? contextQuery : contextAsOfQuery, {
    id,
    before: request.cursor?.[0] ?? null,
    take: request.limit + 1,
    asOf
  }, ChainRow).pipe(
    Effect.zip(currentBudget(chainBudgetBytes)),
    Effect.flatMap(([rows, budget]) => {
      if (rows.length === 0) {
        return Effect.fail(
          asOf === null
            ? notFound(field, id)
            : new FactNotFound({ message: `${field}: no fact with id ${id} at as_of` })
        )
      }
      const chain = rows.flatMap((r) => r.fact === null ? [] : [r.fact])
      // Nearest first, so the page ends with x and the next one reads on toward the root. Each
      // fact's parent is the next one read (the root's is null: it is the last row there is).
      const facts = chain.map((f, i) => withParent(f, chain[i + 1]?.id ?? null))
      const { items, next_cursor } = page(facts, request.limit, (f) => [stampOf(f)], budget)
      return Effect.succeed<Page<Fact>>({ items: [...items].reverse(), next_cursor })
    })
  )

/**
 * The subtree below x as edges between node ids, and whether x or a fact above it is superseded or
 * retracted:
 * all impact needs to place every dependent (domain/descendants.ts). Bounded by the size of x's
 * subtree, which the page does not bound: the order (distance, then age) is only known once every
 * dependent is placed. Each row is four numbers, and no fact is mapped here.
 */
export const subtreeQuery = `MATCH (x:Fact {id: $id}) ` +
  `WITH x, ${tainting("x")} OR ` +
  `size([(x)-[:BUILDS_ON*1..]->(x_anc) WHERE ${tainting("x_anc")} | 1]) > 0 AS tainted ` +
  `OPTIONAL MATCH (x)<-[:BUILDS_ON*0..]-(p)<-[:BUILDS_ON]-(d) ` +
  `RETURN id(x) AS root, tainted, ` +
  `collect(CASE WHEN d IS NULL THEN NULL ELSE [id(p), id(d), d.created_at, indegree(d, 'SUPERSEDES'), ` +
  `indegree(d, 'RETRACTS')] END) AS edges`

/**
 * The facts of one page, by node id, each with its parent's fact id. The ids are bound to plain
 * variables first: `id(f) = r[0]` made FalkorDB 4.16 scan every node per row instead of seeking.
 */
export const pageFactsQuery = `UNWIND $rows AS r WITH r[0] AS node, r[1] AS parent ` +
  `MATCH (f) WHERE id(f) = node MATCH (p) WHERE id(p) = parent ` +
  `RETURN node, {${factFields("f")}, parent_id: p.id} AS fact`

const SubtreeRow = Schema.Struct({
  root: Schema.Number,
  tainted: Schema.Boolean,
  /** [parent node, child node, child's created_at, SUPERSEDES into it, RETRACTS into it] */
  edges: Schema.Array(Schema.Tuple(Schema.Number, Schema.Number, Schema.Number, Schema.Number, Schema.Number))
})

/** A dependent's stored fields and parent; its status comes from where it was placed. */
const PageFactRow = Schema.Struct({
  node: Schema.Number,
  fact: Schema.Struct({ ...storedFields, parent_id: Schema.String })
})

export const impact = Effect.fn("relay/factStore/impact")(function*(
  db: GraphDatabase["Type"],
  id: string,
  request: PageRequest<ImpactCursor>,
  field = "fact_id"
) {
  const found = (yield* db.read(subtreeQuery, { id }, SubtreeRow))[0]
  if (found === undefined) return yield* notFound(field, id)
  const placed = placeDescendants(
    found.root,
    found.tainted,
    found.edges.map(([parent, child, createdAt, superseded, retracted]) => ({
      parent,
      child,
      createdAt,
      superseded: superseded > 0,
      retracted: retracted > 0
    }))
  )
  const wanted = after(placed, request.cursor, request.limit + 1)
  if (wanted.length === 0) return { items: [], next_cursor: null } satisfies Page<Dependent>
  const rows = yield* db.read(pageFactsQuery, { rows: wanted.map((p) => [p.node, p.parent]) }, PageFactRow)
  const byNode = new Map(rows.map((r) => [r.node, r.fact]))
  const keys = new Map<string, ImpactKey>()
  const dependents = wanted.flatMap((p): Array<Dependent> => {
    const fact = byNode.get(p.node)
    if (fact === undefined) return []
    keys.set(fact.id, impactKey(p))
    return [{
      fact: { ...fact, status: statusFrom(p) },
      distance: p.distance
    }]
  })
  const { items, next_cursor } = page(
    dependents,
    request.limit,
    (d) => keys.get(d.fact.id)!,
    yield* currentBudget(chainBudgetBytes)
  )
  return { items, next_cursor } satisfies Page<Dependent>
})

/**
 * The newest facts of a window, filtered by writer and status before the LIMIT so a page is exact:
 * one sort, then the status, then LIMIT, so the status is derived only until the page is full.
 * The sort carries a LIMIT of its own that never cuts: without it FalkorDB 4.16 pushes the final
 * `LIMIT $limit` into the sort, ahead of the status filter, and a page of active facts came back
 * empty when the newest facts were stale (test/tools/status.test.ts).
 */
const recentQuery = (filter: "session" | "since", asOf: boolean) =>
  `MATCH (f:Fact) WHERE ${filter === "session" ? "f.session_id = $sessionId AND " : "f.created_at >= $from AND "}` +
  `f.created_at < $before AND ($writtenBy IS NULL OR f.written_by = $writtenBy) ` +
  `WITH f ORDER BY f.created_at DESC LIMIT ${Number.MAX_SAFE_INTEGER} ` +
  `WITH f, ${factMap("f", asOf)} AS fact WHERE $statuses IS NULL OR ${statusOf("fact")} IN $statuses ` +
  `WITH fact LIMIT $limit RETURN fact`

const day = 24 * 60 * 60 * 1000

/**
 * Windows tried first for the newest facts before `before`. FalkorDB 4.16 sorts every fact for
 * ORDER BY ... LIMIT (30-50 ms at 100k facts); a lower bound on created_at goes through the index
 * instead (~1.5 ms). When a window holds more than `limit` matching facts, the newest `limit` + 1
 * are all in it; otherwise widen, and at last take everything from 0.
 */
const windows = [day, 32 * day, Number.MAX_SAFE_INTEGER]

/** One page of the newest facts (optionally of one session, writer or statuses) older than `before`, newest first. */
export const currentState = (
  db: GraphDatabase["Type"],
  now: number,
  options: CurrentStateOptions
) => {
  const { limit, sessionId } = options
  const asOf = options.asOf ?? null
  // As of a time: nothing stamped after it (before is exclusive, stamps are whole milliseconds).
  const before = Math.min(options.before ?? Number.MAX_SAFE_INTEGER, asOf === null ? Number.MAX_SAFE_INTEGER : asOf + 1)
  const top = Math.min(options.before ?? now, asOf ?? Number.MAX_SAFE_INTEGER)
  const filters = { writtenBy: options.writtenBy ?? null, statuses: options.statuses ?? null, asOf }
  const read = ([rows, budget]: readonly [ReadonlyArray<{ readonly fact: Fact }>, number]): Page<Fact> =>
    page(rows.map((r) => r.fact), limit, (f) => [stampOf(f)], budget)
  const attempt = (i: number): Effect.Effect<ReadonlyArray<{ readonly fact: Fact }>, DatabaseError> => {
    const window = windows[i]!
    const from = i === windows.length - 1 ? 0 : top - window
    return db.read(recentQuery("since", asOf !== null), { limit: limit + 1, from, before, ...filters }, FactColumn)
      .pipe(
        Effect.flatMap((rows) =>
          rows.length > limit || i === windows.length - 1 ? Effect.succeed(rows) : attempt(i + 1)
        )
      )
  }
  const rows = sessionId !== null
    ? db.read(recentQuery("session", asOf !== null), { limit: limit + 1, sessionId, before, ...filters }, FactColumn)
    : attempt(0)
  return Effect.map(Effect.zip(rows, currentBudget()), read)
}
