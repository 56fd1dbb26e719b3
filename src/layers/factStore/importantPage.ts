import { Effect, Schema } from "effect"
import type { Fact } from "../../domain/fact.js"
import { currentBudget, page } from "../../domain/paging.js"
import type { ImportantOptions, ImportantPage } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { FactFromRow, factMap } from "./projection.js"
import { headQuery, HeadRow } from "./rankGenerations.js"
import { importantNow, importantPlace } from "./ranking.js"

/** The place in the generation of the cursor's fact (the same rank and stamp), through the RANKED indexes. */
const placeQuery = `MATCH ()-[r:RANKED]->() WHERE r.gen = $gen AND r.rank = $rank AND r.at = $at RETURN r.pos AS pos`
/** A cursor from another generation: the first place after its key in this one (a range of the rank index). */
const afterKeyQuery = `MATCH ()-[r:RANKED]->() WHERE r.gen = $gen AND r.rank <= $rank ` +
  `AND (r.rank < $rank OR r.at > $at) RETURN min(r.pos) AS pos`
const PosRow = Schema.Struct({ pos: Schema.NullOr(Schema.Number) })

/** Places ($from, $to] of the generation, retracted facts left out (a retraction since it was built). */
const entriesQuery = `MATCH ()-[r:RANKED]->() WHERE r.gen = $gen AND r.pos > $from AND r.pos <= $to ` +
  `WITH r, startNode(r) AS f WHERE indegree(f, 'RETRACTS') = 0 ` +
  `RETURN r.pos AS pos, r.score AS score, r.rank AS rank, ${factMap("f")} AS fact ORDER BY pos`
const EntryRow = Schema.Struct({ pos: Schema.Number, score: Schema.Number, rank: Schema.Number, fact: FactFromRow })

/**
 * A page of the important facts: from the materialised generation (rankGenerations.ts) through its
 * indexes, O(page), as of its stamp; a memory with no generation yet computes it now from its shape
 * (bounded statements, as of its last stamp). Keyset on (rank, created_at) either way.
 */
export const important = Effect.fn("relay/factStore/important")(function*(
  db: GraphDatabase["Type"],
  options: ImportantOptions
) {
  const head = (yield* db.read(headQuery, {}, HeadRow))[0]
  if (head === undefined || head.gen === null || head.gen === 0) {
    const now = yield* importantNow(db, options)
    const result: ImportantPage = { ...now, asOf: head?.last ?? null }
    return result
  }
  const gen = head.gen
  const after = options.after ?? null
  let from = 0
  if (after !== null) {
    const key = { gen, rank: after.rank, at: after.at }
    const found = (yield* db.read(placeQuery, key, PosRow))[0]?.pos ??
      ((yield* db.read(afterKeyQuery, key, PosRow))[0]?.pos ?? Number.MAX_SAFE_INTEGER) - 1
    from = found
  }
  const rows: Array<{ fact: Fact; score: number; rank: number }> = []
  const end = head.count ?? 0
  // A retracted fact is left out: read on until the page (and one more) is full or the generation ends.
  while (rows.length <= options.limit && from < end) {
    const to = from + options.limit + 1 - rows.length
    for (const r of yield* db.read(entriesQuery, { gen, from, to }, EntryRow)) rows.push(r)
    from = to
  }
  const budget = yield* currentBudget()
  const cut = page(rows, options.limit, importantPlace, budget)
  const result: ImportantPage = {
    items: cut.items.map((r) => ({ fact: r.fact, score: r.score })),
    next_cursor: cut.next_cursor,
    asOf: head.asOf
  }
  return result
})
