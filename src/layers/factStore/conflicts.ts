import { Effect } from "effect"
import type { Conflict } from "../../domain/fact.js"
import { fitting, replyBudgetBytes } from "../../domain/paging.js"
import { conflictChildrenShown } from "../../domain/rules.js"
import type { ConflictsAfter, ConflictsPage, ConflictsRequest } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { childMap } from "./childMap.js"
import { factMap, type FactRow, toFact } from "./projection.js"

/**
 * A child counts when stamped at or before the snapshot and not superseded by a decision stamped by
 * then. `late` holds the node ids of the losers of decisions stamped after the snapshot (one entry a
 * decision; none on a first page), so a child is open when every SUPERSEDES into it is late. Most
 * children were never superseded and indegree() answers them without a pattern: a pattern per child
 * (with the stamp test inside, FalkorDB scanned the SUPERSEDES stamp index once per child) took
 * 688 ms at 100k facts.
 */
const openChild = (c: string) =>
  `${c}.created_at <= snap AND (indegree(${c}, 'SUPERSEDES') = 0 OR ` +
  `(size(late) > 0 AND indegree(${c}, 'SUPERSEDES') <= size([x IN late WHERE x = id(${c})])))`

/**
 * Open conflicts, one row per forked parent, as of a snapshot stamp (the graph's last stamp on a
 * first page, carried by the cursor after): every later write is stamped after it, so pages never
 * shift. The walk starts at the parents a ForkMark points at (made by the save that made the fork,
 * see saveFact.ts), never at every fact. A parent is open when its open children say at least two
 * different things; its key is its newest open child's created_at (stamps are unique: see
 * stampClause), newest key first. Only the page's parents have their children mapped, at most
 * `$children` + 1 each (the extra one says that more remain); keys and counts are plain numbers over
 * every open child.
 */
export const openConflictsQuery = `MATCH (clk:RelayClock {id: 0}) WITH coalesce($snap, clk.last) AS snap ` +
  `OPTIONAL MATCH ()-[lr:SUPERSEDES]->(lost) WHERE lr.created_at > snap WITH snap, collect(id(lost)) AS late ` +
  `MATCH (:ForkMark)-[:MARKS]->(p:Fact) WITH DISTINCT snap, late, p ` +
  `MATCH (p)<-[:BUILDS_ON]-(c:Fact) WHERE ${openChild("c")} ` +
  `WITH snap, late, p, max(c.created_at) AS key, count(c) AS total, count(DISTINCT c.norm) AS norms ` +
  `WHERE norms > 1 AND (key < $afterKey OR (key = $afterKey AND $afterChild > 0)) ` +
  `WITH snap, late, p, key, total ORDER BY key DESC LIMIT $parents ` +
  `MATCH (p)<-[:BUILDS_ON]-(k:Fact) WHERE (key < $afterKey OR k.created_at < $afterChild) AND ${openChild("k")} ` +
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
 * the budget). A parent with more children than shown is the page's last and continues on the next.
 */
export const conflictsPage = (
  items: ReadonlyArray<ConflictItem>,
  request: ConflictsRequest,
  budget = replyBudgetBytes,
  atLeast = 1
): ConflictsPage => {
  // A parent whose children did not all fit ends the page: the cursor then points inside it, and no
  // later parent may come first (the cursor after a later parent would skip the rest of its children).
  const cut = items.findIndex((i) => i.child > 0)
  const candidates = items.slice(0, Math.min(request.limit, cut === -1 ? Infinity : cut + 1))
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
  readConflicts(db, request).pipe(Effect.map((items) => conflictsPage(items, request)))
