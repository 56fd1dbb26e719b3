import { Effect, Schema } from "effect"
import type { FalkorDB, Graph } from "falkordb"
import { normaliseContent } from "../src/domain/content.js"
import { termsOf } from "../src/domain/terms.js"
import { buildClusters } from "../src/layers/factStore/clusterMigration.js"
import { forkBatch, lastStampQuery, rewindQuery } from "../src/layers/factStore/forkWindow.js"
import { markDependentsOfRows, neverStale } from "../src/layers/factStore/staleness.js"
import { addTermCountsParams, addTermCountsQuery } from "../src/layers/factStore/termCounts.js"
import type { GraphDatabaseShape } from "../src/services/GraphDatabase.js"
import { bulkInsert, edgeBlob, nodeBlob } from "./bulkInsert.js"

/**
 * Loading a large memory in a few batched statements (saving 100k facts one tool call at a time
 * would take hours): the same properties, edges and marks relay_save_fact writes.
 */

/** A :Fact node's stored properties, as relay_save_fact writes them. */
export interface StoredFact {
  readonly id: string
  readonly content: string
  readonly norm: string
  readonly written_by: string
  readonly session_id: string
  readonly created_at: number
  /** The ranking terms (layers/factStore/termCounts.ts). */
  readonly terms: ReadonlyArray<string>
}

export const storedFact = (
  id: string,
  content: string,
  writtenBy: string,
  sessionId: string,
  createdAt: number
): StoredFact => ({
  id,
  content,
  norm: normaliseContent(content),
  written_by: writtenBy,
  session_id: sessionId,
  created_at: createdAt,
  terms: termsOf(content)
})

export const batches = <A>(xs: ReadonlyArray<A>, n: number): Array<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n))

const batch = 5000

/** Creates the facts in `$rows` (StoredFacts); shared with the hostile shapes of test/hostile/chainShapes.ts. */
export const createFactsCypher =
  `UNWIND $rows AS r CREATE (:Fact {id: r.id, content: r.content, norm: r.norm, written_by: r.written_by, ` +
  `session_id: r.session_id, created_at: r.created_at, terms: r.terms, stale_at: ${neverStale}})`

/** Links each [child, parent] in `$edges` with BUILDS_ON. */
export const createBuildsOnCypher =
  `UNWIND $edges AS e MATCH (c:Fact {id: e[0]}), (p:Fact {id: e[1]}) CREATE (c)-[:BUILDS_ON]->(p)`

export const createFacts = async (graph: Graph, facts: ReadonlyArray<StoredFact>) => {
  for (const rows of batches(facts, batch)) {
    await graph.query(createFactsCypher, { params: { rows: rows as never } })
  }
  await countTerms(graph, facts)
}

const factProperties = ["id", "content", "norm", "written_by", "session_id", "created_at", "terms", "stale_at"]
/** Facts a GRAPH.BULK: each a few tens of milliseconds of the server's time. */
const bulkBatch = 2000

/**
 * createFacts through GRAPH.BULK (bulkInsert.ts), the same nodes: returns each fact's internal node
 * id, which GRAPH.BULK edges name. A batch's nodes take the ids after the highest one (checked by
 * its first and last fact; a graph with freed ids would reuse them, and is refused).
 */
export const bulkCreateFacts = async (client: FalkorDB, name: string, facts: ReadonlyArray<StoredFact>) => {
  const graph = client.selectGraph(name)
  const nodeOf = new Map<string, number>()
  const idOf = async (id: string) =>
    ((await graph.roQuery(`MATCH (f:Fact {id: $id}) RETURN id(f) AS n`, { params: { id } })).data?.[0] as {
      n: number
    }).n
  for (const rows of batches(facts, bulkBatch)) {
    const blob = nodeBlob(
      "Fact",
      factProperties,
      rows.map((f) => [f.id, f.content, f.norm, f.written_by, f.session_id, f.created_at, f.terms, neverStale])
    )
    await bulkInsert(client, name, { nodes: rows.length, nodeBlobs: [blob] })
    const first = await idOf(rows[0]!.id)
    if ((await idOf(rows[rows.length - 1]!.id)) !== first + rows.length - 1) {
      throw new Error("the bulk load's node ids are not consecutive (a graph with deleted nodes)")
    }
    rows.forEach((f, k) => nodeOf.set(f.id, first + k))
  }
  await countTerms(graph, facts)
  return nodeOf
}

/** createBuildsOn through GRAPH.BULK, by the facts' node ids. */
export const bulkBuildsOn = async (
  client: FalkorDB,
  name: string,
  edges: ReadonlyArray<readonly [string, string]>,
  nodeOf: ReadonlyMap<string, number>
) => {
  for (const part of batches(edges, 20_000)) {
    const blob = edgeBlob("BUILDS_ON", [], part.map(([c, p]) => [nodeOf.get(c)!, nodeOf.get(p)!] as const))
    await bulkInsert(client, name, { edges: part.length, edgeBlobs: [blob] })
  }
}

/** The document counts relay_save_fact keeps (termCounts.ts), added for these facts. */
export const countTerms = async (graph: Graph, facts: ReadonlyArray<StoredFact>) => {
  const { counts, docs, terms } = addTermCountsParams(facts.map((f) => f.terms))
  for (const [i, part] of batches(counts, batch).entries()) {
    // The totals once, with the first batch.
    await graph.query(addTermCountsQuery, {
      params: { counts: part as never, docs: i === 0 ? docs : 0, terms: i === 0 ? terms : 0 }
    })
  }
}

/** Each edge is [child, parent]. */
export const createBuildsOn = async (graph: Graph, edges: ReadonlyArray<readonly [string, string]>) => {
  for (const part of batches(edges, batch)) {
    await graph.query(createBuildsOnCypher, { params: { edges: part as never } })
  }
}

/** A decision as relay_resolve_conflict records it: `from` superseded `to`. */
export interface Supersedes {
  readonly from: string
  readonly to: string
  readonly reason: string
  readonly resolved_by: string
  readonly created_at: number
}

export const createSupersedes = async (graph: Graph, edges: ReadonlyArray<Supersedes>) => {
  for (const part of batches(edges, batch)) {
    await graph.query(
      `UNWIND $edges AS e MATCH (w:Fact {id: e.from}), (l:Fact {id: e.to}) ` +
        `CREATE (w)-[:SUPERSEDES {reason: e.reason, resolved_by: e.resolved_by, created_at: e.created_at}]->(l) ` +
        // What resolve stores: the loser's dependents stale from the decision (staleness.ts).
        `WITH l AS x, e.created_at AS at ${markDependentsOfRows}`,
      { params: { edges: part as never } }
    )
  }
}

/** Each ForkMark's window from its edges (forkWindow.ts), as the writes that made the graph would have left it open or closed now. */
export const rewindForks = async (graph: Graph) => {
  const last = ((await graph.roQuery(lastStampQuery)).data?.[0] as { last: number | null } | undefined)?.last ?? 0
  for (let after = -1;;) {
    const row = (await graph.query(rewindQuery, { params: { after, last } })).data?.[0] as
      | { last: number | null; n: number }
      | undefined
    if (row === undefined || row.last === null || row.n < forkBatch) return
    after = row.last
  }
}

/** As relay_save_fact leaves them: a parent whose children differ after normalising has a ForkMark (rewindForks sets its window). */
export const markForks = async (graph: Graph, parents: ReadonlyArray<string>) => {
  for (const ids of batches(parents, batch)) {
    await graph.query(`UNWIND $ids AS id MATCH (p:Fact {id: id}) CREATE (:ForkMark)-[:MARKS]->(p)`, {
      params: { ids: ids as never }
    })
  }
}

/** Raw Cypher (a bare client's query) as the statements Relay's own steps take: rows decoded, failures defects. */
export type RawQuery = (cypher: string, params: Record<string, unknown>) => Promise<ReadonlyArray<unknown>>
export const statements = (query: RawQuery): Pick<GraphDatabaseShape, "read" | "write"> => {
  const run = (cypher: string, params?: Record<string, unknown>, row?: Schema.Schema<unknown, unknown>) =>
    Effect.promise(() => query(cypher, params ?? {})).pipe(
      Effect.flatMap((rows) => row === undefined ? Effect.void : Schema.decodeUnknown(Schema.Array(row))(rows)),
      Effect.orDie
    )
  return { read: run as never, write: run as never }
}

/**
 * What relay_save_fact keeps on write and the schema 8 migration computes for a graph loaded in
 * bulk: each fact's thread root, each thread's cluster and each cluster's tallies
 * (layers/factStore/threadClusters.ts). Run once the facts, their edges and marks are loaded.
 */
export const storeThreadClusters = (query: RawQuery) => Effect.runPromise(buildClusters(statements(query)))

/** storeThreadClusters on a bare client's graph. */
export const storeThreadClustersOn = (graph: Graph) =>
  storeThreadClusters(async (cypher, params) => (await graph.query(cypher, { params: params as never })).data ?? [])
