import { Effect, Schema } from "effect"
import { entryParents } from "../../domain/batchEntry.js"
import { FactNotFound, InvalidInput, MemoryFull } from "../../domain/errors.js"
import { requestIdMessage } from "../../domain/requestId.js"
import type { BulkFact, BulkSaved } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { clockBind, clockRead, clockVars, clockWrite, nextStamp } from "../database/clock.js"
import { type GraphCapacity, textBytes } from "./capacity.js"
import { factNode, factRow, type FactRowFor, fromRow } from "./factNode.js"
import { writeMark } from "./forkMark.js"
import { linkKids, plain } from "./forkRule.js"
import { settleFork } from "./forkWindow.js"
import { inheritedStale, neverStale } from "./staleness.js"
import { addDocs, addTermCountsParams } from "./termCounts.js"
import { batchClusters, clusterOnBatch } from "./threadClusters.js"

/** The Fact's properties the bulk statement does not take from its row. */
const notFromRow = {
  created_at: "base + r.i",
  stale_at: String(neverStale),
  // None given (saveMany); the merge fields come with the parent edges (below), a procedure's
  // fields with its steps (procedures/steps.ts).
  contradicts: null,
  merge_of: null,
  merge_depth: null,
  version: null,
  lineage: null,
  runs_ok: null,
  runs_failed: null,
  // Not embedded on the bulk path: the backfill adds its vectors (vectors.ts).
  embedding: null
} as const

/**
 * The mark rule (domain/forkMarks.ts) for a batch of the newest facts, none a revision, under the
 * parent `p` (its children `kids`; `norms` the texts of its unretracted kind-less ones; `paired`
 * whether a child of the batch has a FORKS edge to an unretracted one): a pair with one of `$ids` in it
 * whose other side is not retracted now, so was not at the later side's stamp. Two kind-less texts
 * and a kind-less child of the batch (one of the texts then differs from it), or a FORKS edge to a
 * sibling. The window is settled from the edges right after (settleFork), so the mark opens none.
 */
const newestMarks =
  `((any(x IN norms WHERE x <> norms[0]) AND any(k IN kids WHERE k.id IN $ids AND ${plain("k")})) OR ` +
  `paired)`

/**
 * Many facts in ONE statement (the bulk path: seed, benchmarks, import), with what a save writes
 * for each: the node (content, norm, content key, author, session, kind, terms), its BUILDS_ON edge,
 * the term counts BM25 reads (termCounts.ts), its stored staleness (staleness.ts), the ForkMark of a parent whose children now differ,
 * and a stamp taken inside the statement (the later of the Clock's now and just past the graph's
 * last stamp, then one apart in the order given, so stamps follow commit order as a save's do).
 *
 * The statement first checks what the caller (saveMany below) read beforehand: every fact it is
 * to create is still absent and every parent outside the batch still exists. The check is an
 * aggregation, so if any row fails it, nothing at all is written (no row reaches the writes) and
 * the statement answers no row; saveMany then reads again and answers the rule that broke.
 * Parents inside the batch are linked after all nodes exist (the second aggregation).
 */
export const saveManyQuery = `UNWIND $check AS c OPTIONAL MATCH (e:Fact {id: c[0]}) ` +
  `WITH c, e WHERE (c[1] AND e IS NULL) OR (NOT c[1] AND e IS NOT NULL) ` +
  `WITH count(*) AS passed WHERE passed = size($check) ` +
  `${clockBind([])}` +
  `WITH ${clockVars}, ${nextStamp} AS base ` +
  // The batch must fit the graph's capacity (capacity.ts), checked and counted as a save does.
  `WHERE coalesce(clk.facts, 0) + size($rows) <= $maxFacts AND coalesce(clk.bytes, 0) + $bytes <= $maxBytes ` +
  clockWrite({
    last: "base + size($rows) - 1",
    facts: "coalesce(clk.facts, 0) + size($rows)",
    bytes: "coalesce(clk.bytes, 0) + $bytes",
    docs: "coalesce(clk.docs, 0) + $docs",
    terms: "coalesce(clk.terms, 0) + $terms"
  }) +
  `WITH base UNWIND $rows AS r ` +
  `CREATE ${factNode("f", { ...fromRow("r"), ...notFromRow })} ` +
  // The new nodes by position and the parents outside the batch by position, so each edge is made
  // from node references: no index lookup for a parent in the batch.
  `WITH collect(f) AS made ` +
  `UNWIND CASE WHEN size($outside) = 0 THEN [null] ELSE $outside END AS pid ` +
  // Each outside parent's staleness as a child inherits it (both lists drop the one null alike).
  `OPTIONAL MATCH (o:Fact {id: pid}) ` +
  `WITH made, collect(o) AS outer, collect(CASE WHEN o IS NULL THEN NULL ELSE ${
    inheritedStale("o")
  } END) AS outerStale ` +
  `UNWIND $links AS l WITH made[l[0]] AS c, CASE WHEN l[1] >= 0 THEN made[l[1]] ELSE outer[l[2]] END AS p, ` +
  `CASE WHEN l[3] >= 0 THEN outerStale[l[3]] ELSE ${neverStale} END AS st, ` +
  `CASE WHEN l[3] >= 0 THEN outer[l[3]] ELSE null END AS entry ` +
  // One parent each, so the nearest merge above and the merges on the line are the entry's (createFact.ts).
  `CREATE (c)-[:BUILDS_ON]->(p) SET c.stale_at = st, c.merge_of = entry.merge_of, c.merge_depth = entry.merge_depth ` +
  // Aggregations without a key: one row goes on even when the list before them is empty.
  `WITH count(*) AS linked ` +
  `FOREACH (t IN $counts | ${addDocs("t[0]", "t[1]")}) ` +
  // The fork pairs kept as FORKS edges (forkRule.ts), made here for the batch's facts; then the marks.
  `WITH linked UNWIND $parents AS pid MATCH (p:Fact {id: pid}) ` +
  `WITH p, [(p)<-[:BUILDS_ON|ALSO_ON]-(k:Fact) | k] AS kids ` +
  linkKids("kids", "$ids") +
  `WITH p, kids, [k IN kids WHERE ${plain("k")} AND indegree(k, 'RETRACTS') = 0 | k.norm] AS norms, ` +
  `[k IN kids WHERE k.id IN $ids AND indegree(k, 'FORKS') + outdegree(k, 'FORKS') > 0] AS forky ` +
  // One row a child of the batch with a FORKS edge (none under most parents): its unretracted partners here.
  `UNWIND CASE WHEN size(forky) = 0 THEN [null] ELSE forky END AS fk ` +
  `OPTIONAL MATCH (fk)-[:FORKS]-(y) WHERE y IN kids AND indegree(y, 'RETRACTS') = 0 ` +
  `WITH p, kids, norms, count(y) > 0 AS paired ` +
  `FOREACH (_ IN CASE WHEN indegree(p, 'MARKS') = 0 AND ${newestMarks} THEN [1] ELSE [] END | ` +
  `${writeMark("p", "false", "null")}) ` +
  // A batch only adds children: a window opens, at the batch's first stamp at the latest (forkWindow.ts).
  `WITH p ${settleFork("p", "$now", "true", [])}` +
  `WITH count(*) AS marked ` +
  `${clockRead([])}WITH clk.last - size($rows) + 1 AS base ${clusterOnBatch}RETURN base`

/** What the graph holds now, as its capacity counts it (capacity.ts). */
const heldQuery = `${clockRead([])}RETURN coalesce(clk.facts, 0) AS facts, coalesce(clk.bytes, 0) AS bytes`
const HeldRow = Schema.Struct({ facts: Schema.Number, bytes: Schema.Number })

/** What is stored under an id a batch names: the fact a request_id made before, to compare. */
const earlierQuery = `UNWIND $ids AS id MATCH (f:Fact {id: id}) ` +
  `RETURN f.id AS id, f.content AS content, f.session_id AS session, coalesce(f.kind, '') AS kind, ` +
  `head([(f)-[:BUILDS_ON]->(up) | up.id]) AS parent, outdegree(f, 'ALSO_ON') AS also, f.created_at AS created_at`

const EarlierRow = Schema.Struct({
  id: Schema.String,
  content: Schema.String,
  session: Schema.String,
  kind: Schema.String,
  parent: Schema.NullOr(Schema.String),
  /** Extra parents: a batch names one parent a fact, so a stored merge is never the same. */
  also: Schema.Number,
  created_at: Schema.Number
})

const parentsQuery = `UNWIND $ids AS id MATCH (f:Fact {id: id}) RETURN f.id AS id, f.root AS root`
const IdRow = Schema.Struct({ id: Schema.String, root: Schema.NullOr(Schema.String) })
const BaseRow = Schema.Struct({ base: Schema.Number })

/** How many times a batch is read and written again when a concurrent writer changed what it read. */
const attempts = 3

/**
 * Saves `facts` (ids already chosen: random, or derived from request_id) in one statement, in the
 * order given; a fact's parent is an existing fact or one earlier in `facts`. A fact whose id is
 * already stored (the same request_id again) is not written twice: when it says the same (content,
 * session, kind, parent) its stored stamp is answered, otherwise `invalid_input` naming
 * `facts.<i>.request_id`; a parent that does not exist is `fact_not_found` naming
 * `facts.<i>.parent_fact_id`. Either way nothing of the batch is written.
 */
export const saveMany = Effect.fn("relay/factStore/saveMany")(function*(
  db: GraphDatabase["Type"],
  capacity: GraphCapacity,
  now: number,
  facts: ReadonlyArray<BulkFact>,
  /** The place of facts[0] in the caller's whole list, for the messages. */
  first = 0
) {
  const field = "facts"
  const index = new Map(facts.map((f, i) => [f.id, i]))
  for (let attempt = 1;; attempt++) {
    const requested = facts.filter((f) => f.requested).map((f) => f.id)
    const earlier = new Map(
      requested.length === 0 ? [] : (yield* db.read(earlierQuery, { ids: requested }, EarlierRow)).map((r) => [r.id, r])
    )
    const stored = (id: string) => !index.has(id) || earlier.has(id)
    const outside = [...new Set(facts.flatMap((f) => f.parentId !== null && stored(f.parentId) ? [f.parentId] : []))]
    const rootOfFound = new Map(
      outside.length === 0
        ? []
        : (yield* db.read(parentsQuery, { ids: outside }, IdRow)).map((r) => [r.id, r.root ?? r.id])
    )
    const found = new Set(rootOfFound.keys())
    const fresh: Array<BulkFact & { readonly i: number }> = []
    for (const [i, f] of facts.entries()) {
      const e = earlier.get(f.id)
      if (e !== undefined) {
        if (
          e.content !== f.content || e.session !== f.sessionId || e.kind !== (f.kind ?? "") ||
          e.parent !== f.parentId || e.also > 0
        ) {
          return yield* new InvalidInput({ message: `${field}.${first + i}.${requestIdMessage.save}` })
        }
        continue
      }
      if (f.parentId !== null) {
        const at = index.get(f.parentId)
        if (at === undefined ? !found.has(f.parentId) : at > i) {
          return yield* new FactNotFound({
            message: `${field}.${first + i}.parent_fact_id: no fact with that id${at === undefined ? "" : " before it"}`
          })
        }
      }
      fresh.push({ ...f, i: fresh.length })
    }
    if (fresh.length === 0) {
      return facts.map((f): BulkSaved => ({ id: f.id, createdAt: earlier.get(f.id)!.created_at, existed: true }))
    }
    const bytes = fresh.reduce((n, f) => n + textBytes(f.content), 0)
    const held = (yield* db.read(heldQuery, {}, HeldRow))[0] ?? { facts: 0, bytes: 0 }
    if (held.facts + fresh.length > capacity.facts || held.bytes + bytes > capacity.bytes) {
      return yield* new MemoryFull({
        message: `${field}: the batch does not fit: the memory may hold ${capacity.facts} facts (RELAY_MAX_FACTS) ` +
          `and ${capacity.bytes} bytes of text (RELAY_MAX_CONTENT_BYTES); it holds ${held.facts} and ${held.bytes}; ` +
          `nothing was written`
      })
    }
    // The bulk path writes no contradicts.
    const given = fresh.map((f) =>
      factRow({
        id: f.id,
        content: f.content,
        writtenBy: f.writtenBy,
        sessionId: f.sessionId,
        kind: f.kind ?? null,
        contradicts: null
      })
    )
    const counts = addTermCountsParams(given.map((r) => r.terms))
    const place = new Map(fresh.map((f) => [f.id, f.i]))
    const outer = new Map(outside.map((id, k) => [id, k]))
    const entries = entryParents(fresh)
    // Each fact's thread root: a parent earlier in the batch has its own already.
    const roots = new Map<string, string>()
    for (const f of fresh) {
      roots.set(
        f.id,
        f.parentId === null ? f.id : roots.get(f.parentId) ?? rootOfFound.get(f.parentId) ?? f.parentId
      )
    }
    const rows = yield* db.write(saveManyQuery, {
      now,
      bytes,
      maxFacts: capacity.facts,
      maxBytes: capacity.bytes,
      // What was read must still hold: a fact to create is absent (only an id from a request_id can
      // be there already), a fact found is there, a parent outside the batch is there.
      check: [
        ...facts.flatMap((f) => !f.requested && !earlier.has(f.id) ? [] : [[f.id, !earlier.has(f.id)]]),
        ...outside.map((id) => [id, false])
      ],
      rows: fresh.map((f, k) => ({
        ...given[k]!,
        i: f.i,
        root: roots.get(f.id)!
      } satisfies FactRowFor<keyof typeof notFromRow> & { readonly i: number })),
      ...batchClusters(fresh.map((f) => ({ id: f.id, root: roots.get(f.id)!, at: f.i }))),
      outside,
      // [child, parent in the batch or -1, parent outside it, the nearest ancestor outside it
      // (staleness comes from there)]; a parent already stored by an earlier try of the same
      // request_id counts as outside.
      links: fresh.flatMap((f, k) =>
        f.parentId === null ? [] : [[
          f.i,
          place.get(f.parentId) ?? -1,
          outer.get(f.parentId) ?? -1,
          outer.get(entries[k] ?? "") ?? -1
        ]]
      ),
      parents: [...new Set(fresh.flatMap((f) => f.parentId === null ? [] : [f.parentId]))],
      ids: fresh.map((f) => f.id),
      counts: counts.counts,
      docs: counts.docs,
      terms: counts.terms
    }, BaseRow)
    const base = rows[0]?.base
    if (base !== undefined) {
      const stampOf = new Map(fresh.map((f) => [f.id, base + f.i]))
      return facts.map((f): BulkSaved => {
        const stamped = stampOf.get(f.id)
        return stamped === undefined
          ? { id: f.id, createdAt: earlier.get(f.id)!.created_at, existed: true }
          : { id: f.id, createdAt: stamped, existed: false }
      })
    }
    // A concurrent writer changed what was read: read again and decide again.
    if (attempt >= attempts) {
      return yield* new InvalidInput({ message: `${field}: the batch kept changing under concurrent writes; retry it` })
    }
  }
})
