import { Effect } from "effect"
import type { Conflict } from "../../domain/fact.js"
import { currentBudget, fitting, replyBudgetBytes } from "../../domain/paging.js"
import { conflictChildrenShown } from "../../domain/rules.js"
import type { ConflictsAfter, ConflictsPage, ConflictsRequest } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { childMap } from "./childMap.js"
import { factMap, type FactRow, toFact } from "./projection.js"

/** A child counts when stamped at or before the snapshot and not superseded by a decision stamped by then. */
const openChild = (c: string, carry: string) =>
  `${c}.created_at <= snap ` +
  `WITH ${carry}, ${c}, size([(${c})<-[${c}_r:SUPERSEDES]-() WHERE ${c}_r.created_at <= snap | 1]) AS ${c}_lost ` +
  `WHERE ${c}_lost = 0`

/**
 * Open conflicts, one row per forked parent, as of a snapshot stamp (the graph's last stamp on a
 * first page, carried by the cursor after): every later write is stamped after it, so pages never
 * shift. The walk starts at the parents a ForkMark points at (made by the save that made the fork,
 * see saveFact.ts), never at every fact. A parent is open when its open children say at least two
 * different things; its key is its newest open child's created_at (unique), newest key first.
 * Only the page's parents have their children mapped, at most `$children` + 1 each (the extra one
 * says that more remain); keys and counts are plain numbers over every open child.
 */
export const openConflictsQuery = `MATCH (clk:RelayClock {id: 0}) WITH coalesce($snap, clk.last) AS snap ` +
  `MATCH (:ForkMark)-[:MARKS]->(p:Fact) WITH DISTINCT snap, p ` +
  `MATCH (p)<-[:BUILDS_ON]-(c:Fact) WHERE ${openChild("c", "snap, p")} ` +
  `WITH snap, p, max(c.created_at) AS key, count(c) AS total, count(DISTINCT c.norm) AS norms ` +
  `WHERE norms > 1 AND (key < $afterKey OR (key = $afterKey AND $afterChild > 0)) ` +
  `WITH snap, p, key, total ORDER BY key DESC LIMIT $parents ` +
  `MATCH (p)<-[:BUILDS_ON]-(k:Fact) WHERE (key < $afterKey OR k.created_at < $afterChild) AND ${openChild("k", "snap, p, key, total")} ` +
  `WITH snap, p, key, total, k ORDER BY key DESC, k.created_at DESC ` +
  `WITH snap, p, key, total, collect(k)[0..$children] AS kids ` +
  `WITH snap, key, total, kids, ${factMap("p")} AS parent ` +
  `RETURN snap, key, total, parent, [x IN kids | ${childMap("x", "parent")}] AS children ` +
  `ORDER BY key DESC`

interface Row {
  readonly snap: number
  readonly key: number
  readonly total: number
  readonly parent: FactRow
  readonly children: ReadonlyArray<FactRow>
}

/** A parent read for a page, with where its children stop (0: all shown). */
export interface ConflictItem {
  readonly conflict: Conflict
  readonly snap: number
  readonly key: number
  readonly child: number
}

/** The parents from `request.after` on, at most `limit` + 1 (the extra one says that more remain). */
export const readConflicts = (db: GraphDatabase["Type"], request: ConflictsRequest) => {
  const children = request.children ?? conflictChildrenShown
  const after = request.after
  return db.read<Row>(openConflictsQuery, {
    snap: after?.snap ?? null,
    afterKey: after?.key ?? Number.MAX_SAFE_INTEGER,
    afterChild: after?.child ?? 0,
    parents: request.limit + 1,
    children: children + 1
  }).pipe(
    Effect.map((rows) =>
      rows.map((r): ConflictItem => {
        const shown = r.children.slice(0, children)
        const more = r.children.length > children
        return {
          conflict: { parent: toFact(r.parent), children: shown.map(toFact), children_total: r.total },
          snap: r.snap,
          key: r.key,
          child: more ? shown[shown.length - 1]!.created_at : 0
        }
      })
    )
  )
}

/**
 * One page of what readConflicts read: at most `limit` parents, cut to `budget` bytes of reply (at
 * least `atLeast` parents, so a page moves forward; the briefing passes 0 when an earlier list spent
 * the budget). A parent with more children than shown continues on the next page.
 */
export const conflictsPage = (
  items: ReadonlyArray<ConflictItem>,
  request: ConflictsRequest,
  budget = replyBudgetBytes,
  atLeast = 1
): ConflictsPage => {
  const candidates = items.slice(0, request.limit)
  const kept = candidates.slice(0, fitting(candidates.map((i) => i.conflict), budget, atLeast))
  const last = kept[kept.length - 1]
  const next: ConflictsAfter | null = last === undefined
    ? items.length === 0 ? null : (request.after ?? { snap: items[0]!.snap, key: Number.MAX_SAFE_INTEGER, child: 0 })
    : last.child > 0 || items.length > kept.length
    ? { snap: last.snap, key: last.key, child: last.child }
    : null
  return { conflicts: kept.map((i) => i.conflict), next }
}

export const openConflicts = (db: GraphDatabase["Type"], request: ConflictsRequest) =>
  readConflicts(db, request).pipe(
    Effect.zip(currentBudget()),
    Effect.map(([items, budget]) => conflictsPage(items, request, budget))
  )
