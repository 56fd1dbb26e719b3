import { Clock, Duration, Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { pageRank } from "../../domain/graphRank.js"
import type { GraphDatabaseShape } from "../../services/GraphDatabase.js"
import { clockRead } from "../database/clock.js"
import { readShape } from "./graphShape.js"

/**
 * Importance materialised (issue 42): PageRank over BUILDS_ON (domain/graphRank.ts) computed off the
 * request path, stored as a generation of RANKED self-loops on the `rankedKept` highest facts
 * ({gen, pos, score, rank, at}: place 1.., score, its keyset form, created_at), and read through the
 * RANKED indexes a page at a time (importantPage.ts). The head, a RANKS self-loop of the one
 * RankHead node, says which generation is read, as of which stamp, and holds the lease.
 *
 * A new generation is due once the memory gained `dueWrites` facts and `dueAfter` passed since the
 * last (whichever comes later); one process at a time builds it, holding the lease (renewed by each
 * statement it writes, so a lost lease stops its writes). Every statement is bounded: the shape is
 * read `shapeBatch` facts a statement (graphShape.ts), the entries written and the old ones deleted
 * `rankBatch` a statement, and one statement moves the head to the new generation.
 */
export const rankedKept = 10_000
export const dueWrites = 1000
export const dueAfter = Duration.minutes(10)
const lease = Duration.minutes(2)
const rankBatch = 250
/** How often each process looks whether a generation is due (one small read). */
export const rankCheckEvery = Duration.minutes(1)

/** Rank as a keyset key: the score in whole 1e-12 units (a score sent back as text loses its last bits). */
export const rankOf = (score: number): number => Math.round(score * 1_000_000_000_000)

const ensureHeadQuery = `MERGE (rh:RankHead {id: 0}) WITH rh WHERE outdegree(rh, 'RANKS') = 0 ` +
  `CREATE (rh)-[:RANKS {gen: 0, as_of: 0, facts: 0, at: 0, count: 0, holder: '', lease_until: 0}]->(rh)`

export const headQuery = `OPTIONAL MATCH (rh:RankHead {id: 0})-[h:RANKS]->(rh) ` +
  `${clockRead(["h"])}RETURN h.gen AS gen, h.as_of AS asOf, h.facts AS facts, h.at AS at, h.count AS count, ` +
  `coalesce(clk.facts, 0) AS written, clk.last AS last`
export const HeadRow = Schema.Struct({
  gen: Schema.NullOr(Schema.Number),
  asOf: Schema.NullOr(Schema.Number),
  facts: Schema.NullOr(Schema.Number),
  at: Schema.NullOr(Schema.Number),
  count: Schema.NullOr(Schema.Number),
  written: Schema.Number,
  last: Schema.NullOr(Schema.Number)
})
export type Head = typeof HeadRow.Type

/** Takes (or renews) the lease when it is free, expired or ours, and the generation is still due. */
const takeQuery = `MATCH (rh:RankHead {id: 0})-[h:RANKS]->(rh) ` +
  `WHERE (h.lease_until < $now OR h.holder = $me) AND ($force OR h.facts + $writes <= $written) ` +
  `SET h.holder = $me, h.lease_until = $now + $lease RETURN h.gen AS gen`
const GenRow = Schema.Struct({ gen: Schema.Number })

/** One batch of the new generation, written only while the lease is ours. */
const writeQuery = `MATCH (rh:RankHead {id: 0})-[h:RANKS]->(rh) WHERE h.holder = $me ` +
  `SET h.lease_until = $now + $lease WITH h ` +
  `UNWIND $rows AS r WITH r[0] AS n, r[1] AS pos, r[2] AS score, r[3] AS rank, r[4] AS at ` +
  `MATCH (f) WHERE id(f) = n CREATE (f)-[:RANKED {gen: $gen, pos: pos, score: score, rank: rank, at: at}]->(f) ` +
  `RETURN count(*) AS n`
const CountRow = Schema.Struct({ n: Schema.Number })

/** The new generation replaces the old in one statement, and the lease is let go. */
const flipQuery = `MATCH (rh:RankHead {id: 0})-[h:RANKS]->(rh) WHERE h.holder = $me ` +
  `SET h.gen = $gen, h.as_of = $asOf, h.facts = $facts, h.at = $now, h.count = $count, h.holder = '', ` +
  `h.lease_until = 0 RETURN h.gen AS gen`

/** Entries of any generation but the one read (an old one, or one whose builder stopped), a batch at a time. */
const pruneQuery = `MATCH ()-[r:RANKED]->() WHERE r.gen < $gen OR r.gen > $gen WITH r LIMIT ${rankBatch} ` +
  `DELETE r RETURN count(*) AS n`

/**
 * The `rankedKept` highest facts, not retracted, by (rank desc, created_at asc): a typed sort of the
 * scores finds the cut, and only the facts at or above it are compared.
 */
export const topRanked = (scores: Float64Array, createdAt: Float64Array, retracted: Uint8Array, kept: number) => {
  const live: Array<number> = []
  for (let v = 0; v < scores.length; v++) if (retracted[v] !== 1) live.push(v)
  let candidates = live
  if (live.length > kept) {
    const sorted = Float64Array.from(live, (v) => rankOf(scores[v]!)).sort()
    const cut = sorted[sorted.length - kept]!
    candidates = live.filter((v) => rankOf(scores[v]!) >= cut)
  }
  return candidates
    .sort((a, b) => rankOf(scores[b]!) - rankOf(scores[a]!) || createdAt[a]! - createdAt[b]!)
    .slice(0, kept)
}

const now = Clock.currentTimeMillis

/**
 * Builds and publishes one generation when due (or `force`: none yet, asked for), holding the
 * lease; false when not due or another process holds it.
 */
export const materialise = Effect.fn("relay/factStore/materialiseRanks")(function*(
  db: Pick<GraphDatabaseShape, "read" | "write">,
  options: { readonly me: string; readonly force?: boolean }
) {
  const head = (yield* db.read(headQuery, {}, HeadRow))[0]
  if (head === undefined) return false
  const at = yield* now
  if (options.force !== true && !isDue(head, at)) return false
  if (head.gen === null) yield* db.write(ensureHeadQuery)
  const params = { me: options.me, lease: Duration.toMillis(lease) }
  const taken = yield* db.write(takeQuery, {
    ...params,
    now: at,
    force: options.force === true,
    writes: dueWrites,
    written: head.written
  }, GenRow)
  const current = taken[0]?.gen
  if (current === undefined) return false
  const gen = current + 1
  // What the generation is as of: the last stamp before the shape is read (later facts are not in it).
  const asOf = head.last ?? 0
  const shape = yield* readShape(db, { retracted: true })
  const scores = pageRank(shape.parent)
  const top = topRanked(scores, shape.createdAt, shape.retracted, rankedKept)
  for (let i = 0; i < top.length; i += rankBatch) {
    const rows = top.slice(i, i + rankBatch).map((v, k) => [
      shape.node[v]!,
      i + k + 1,
      scores[v]!,
      rankOf(scores[v]!),
      shape.createdAt[v]!
    ])
    const wrote = yield* db.write(writeQuery, { ...params, now: yield* now, gen, rows }, CountRow)
    if (wrote.length === 0) return false
  }
  const flipped = yield* db.write(flipQuery, {
    me: options.me,
    gen,
    asOf,
    facts: head.written,
    now: yield* now,
    count: top.length
  }, GenRow)
  if (flipped.length === 0) return false
  yield* prune(db, gen)
  return true
})

/** Deletes every other generation's entries, a bounded statement at a time. */
const prune = (db: Pick<GraphDatabaseShape, "read" | "write">, gen: number) =>
  Effect.gen(function*() {
    for (;;) {
      const n = (yield* db.write(pruneQuery, { gen }, CountRow))[0]?.n ?? 0
      if (n < rankBatch) return
    }
  })

/** Due: a generation exists and the memory gained dueWrites facts and dueAfter passed since it (both). */
export const isDue = (head: Head, at: number): boolean =>
  head.written - (head.facts ?? 0) >= dueWrites && at - (head.at ?? 0) >= Duration.toMillis(dueAfter)

/**
 * Each process looks every `rankCheckEvery` and builds a generation when one is due; a failure
 * (the graph gone, a replica refusing writes, a lost lease) waits for the next look.
 */
export const rankDaemon = (db: Pick<GraphDatabaseShape, "read" | "write">) => {
  const me = randomUUID()
  return Effect.sleep(rankCheckEvery).pipe(
    Effect.zipRight(materialise(db, { me })),
    Effect.catchAllCause((cause) => Effect.logDebug("importance not materialised", cause)),
    Effect.forever
  )
}
