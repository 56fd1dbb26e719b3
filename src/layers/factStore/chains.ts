import { Effect } from "effect"
import { type DatabaseError, FactNotFound } from "../../domain/errors.js"
import type { Dependent, Fact } from "../../domain/fact.js"
import { page } from "../../domain/paging.js"
import type { Page } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { factMap, type FactRow, toFact } from "./projection.js"

const notFound = (field: string, id: string) => new FactNotFound({ message: `${field}: no fact with id ${id}` })

/** The BUILDS_ON chain from the root down to the fact; each fact has at most one parent. */
const contextQuery = `MATCH (x:Fact {id: $id}) ` +
  `OPTIONAL MATCH path = (x)-[:BUILDS_ON*1..]->(root:Fact) WHERE NOT (root)-[:BUILDS_ON]->() ` +
  `WITH CASE WHEN path IS NULL THEN [x] ELSE nodes(path) END AS chain ` +
  `UNWIND range(0, size(chain) - 1) AS depth ` +
  `WITH depth, chain[depth] AS n ` +
  `RETURN depth, ${factMap("n")} AS fact`

export const context = (db: GraphDatabase["Type"], id: string, field = "fact_id") =>
  db.read<{ depth: number; fact: FactRow }>(contextQuery, { id }).pipe(
    Effect.flatMap((rows) =>
      rows.length === 0
        ? Effect.fail(notFound(field, id))
        : Effect.succeed<ReadonlyArray<Fact>>([...rows].sort((a, b) => b.depth - a.depth).map((r) => toFact(r.fact)))
    )
  )

/** Everything that builds on the fact, each once with its shortest distance, nearest and oldest first. */
const impactQuery = `MATCH (x:Fact {id: $id}) ` +
  `OPTIONAL MATCH path = (d:Fact)-[:BUILDS_ON*1..]->(x) ` +
  `WITH d, min(length(path)) AS distance ` +
  `RETURN CASE WHEN d IS NULL THEN NULL ELSE {fact: ${factMap("d")}, distance: distance} END AS dependent ` +
  `ORDER BY distance, d.created_at`

export const impact = (db: GraphDatabase["Type"], id: string, field = "fact_id") =>
  db.read<{ dependent: { fact: FactRow; distance: number } | null }>(impactQuery, { id }).pipe(
    Effect.flatMap((rows) =>
      rows.length === 0
        ? Effect.fail(notFound(field, id))
        : Effect.succeed<ReadonlyArray<Dependent>>(
          rows.flatMap((r) =>
            r.dependent === null ? [] : [{ fact: toFact(r.dependent.fact), distance: r.dependent.distance }]
          )
        )
    )
  )

const recentQuery = (filter: "session" | "since") =>
  `MATCH (f:Fact) WHERE ${filter === "session" ? "f.session_id = $sessionId AND " : "f.created_at >= $from AND "}` +
  `f.created_at < $before ` +
  `WITH f ORDER BY f.created_at DESC LIMIT $limit ` +
  `RETURN ${factMap("f")} AS fact`

const day = 24 * 60 * 60 * 1000

/**
 * Windows tried first for the newest facts before `before`. FalkorDB 4.16 sorts every fact for
 * ORDER BY ... LIMIT (30-50 ms at 100k facts); a lower bound on created_at goes through the index
 * instead (~1.5 ms). When a window holds more than `limit` facts, the newest `limit` + 1 are all in
 * it; otherwise widen, and at last take everything from 0.
 */
const windows = [day, 32 * day, Number.MAX_SAFE_INTEGER]

/** One page of the newest facts (optionally of one session) older than `before`, newest first. */
export const currentState = (
  db: GraphDatabase["Type"],
  now: number,
  options: { readonly limit: number; readonly sessionId: string | null; readonly before: number | null }
) => {
  const { limit, sessionId } = options
  const before = options.before ?? Number.MAX_SAFE_INTEGER
  const top = options.before ?? now
  const read = (rows: ReadonlyArray<{ fact: FactRow }>): Page<Fact> =>
    page(rows.map((r) => toFact(r.fact)), limit, (f) => [Date.parse(f.created_at)])
  const attempt = (i: number): Effect.Effect<ReadonlyArray<{ fact: FactRow }>, DatabaseError> => {
    const window = windows[i]!
    const from = i === windows.length - 1 ? 0 : top - window
    return db.read<{ fact: FactRow }>(recentQuery("since"), { limit: limit + 1, from, before }).pipe(
      Effect.flatMap((rows) => rows.length > limit || i === windows.length - 1 ? Effect.succeed(rows) : attempt(i + 1))
    )
  }
  const rows = sessionId !== null
    ? db.read<{ fact: FactRow }>(recentQuery("session"), { limit: limit + 1, sessionId, before })
    : attempt(0)
  return Effect.map(rows, read)
}
