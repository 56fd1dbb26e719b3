import { Effect } from "effect"
import { FactNotFound } from "../../domain/errors.js"
import type { Dependent, Fact } from "../../domain/fact.js"
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

const recentQuery = (bySession: boolean) =>
  `MATCH (f:Fact) ${bySession ? "WHERE f.session_id = $sessionId " : ""}` +
  `WITH f ORDER BY f.created_at DESC LIMIT $limit ` +
  `RETURN ${factMap("f")} AS fact`

/** The newest facts, optionally of one session. */
export const currentState = (db: GraphDatabase["Type"], limit: number, sessionId: string | null) =>
  db.read<{ fact: FactRow }>(recentQuery(sessionId !== null), { limit, sessionId }).pipe(
    Effect.map((rows) => rows.map((r) => toFact(r.fact)))
  )
