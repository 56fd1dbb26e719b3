import { Effect, Schema } from "effect"
import type { Conflict } from "../../domain/fact.js"
import { currentBudget, fitting, replyBudgetBytes } from "../../domain/paging.js"
import { conflictChildrenShown } from "../../domain/rules.js"
import type { ConflictsAfter, ConflictsPage, ConflictsRequest } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { clockRead } from "../database/clock.js"
import { childMap } from "./childMap.js"
import { forkedWith, plain } from "./forkRule.js"
import { admits } from "./forkWindow.js"
import { edgeOf, oneHop } from "./oneHop.js"
import { factFields, FactFromRow, parentIdOf, stampOf } from "./projection.js"
import { staleBy } from "./staleness.js"
import { threadMembers } from "./threadScope.js"

/**
 * Some SUPERSEDES (RETRACTS) into `v` is stamped by the snapshot: walked on `v`'s own edges (oneHop.ts),
 * and only for the few facts that have one (indegree answers the rest). Never a scan of the edges'
 * stamp index: a statement that reads an index holds RediSearch's one lock for every graph of the
 * server until it ends (see `forkedParentsQuery`).
 */
const edgeBy = (v: string, type: "SUPERSEDES" | "RETRACTS", tag: string) =>
  `size(${
    oneHop({
      from: v,
      dir: "in",
      type,
      path: `${v}_${tag}p`,
      to: `${v}_${tag}w`,
      where: `${edgeOf(`${v}_${tag}p`)}.created_at <= snap`,
      yields: "1"
    })
  }) > 0`

/** Superseded as of the snapshot. */
const supersededAt = (v: string) => edgeBy(v, "SUPERSEDES", "sup")

/** Retracted as of the snapshot. */
const retractedAt = (v: string) => edgeBy(v, "RETRACTS", "ret")

/**
 * What groups children by content: the content key a save stores (`f.hash`, domain/contentKey.ts),
 * or, under a parent where some open child was stored before keys were (`hashed` false), the
 * normalised text itself: either way one key a text, so grouping stays linear.
 */
const textKey = (v: string) => `CASE WHEN hashed THEN ${v}.hash ELSE ${v}.norm END`

/** The parent's map with its status as of the snapshot (its children's follow from it, see childMap). */
const parentMapAt = (v: string) =>
  `{${factFields(v)}, parent_id: ${parentIdOf(v)}, superseded: ${supersededAt(v)}, ` +
  `retracted: ${retractedAt(v)}, stale: ${staleBy(v, "snap")}}`

/** A parent's children stamped at or before the snapshot, as a list (a walk of its adjacency, oneHop.ts). */
const childrenBySnap = oneHop({
  from: "p",
  dir: "in",
  // A fact on several parents is a child of each (builds_on).
  type: "BUILDS_ON|ALSO_ON",
  path: "p_c",
  to: "p_child",
  where: "p_child.created_at <= snap",
  yields: "p_child"
})

/**
 * Binds `open`, a parent's children that take part: stamped by the snapshot, and neither superseded
 * nor retracted by then. Most have no SUPERSEDES or RETRACTS at all (indegree answers them); the
 * others are walked one a row, in a subquery that hands back one list. FalkorDB 4.16 cannot resolve
 * a pattern comprehension inside another's WHERE, and inside a list comprehension's it scans every
 * node for the list's element instead of taking it; a row for every child, its edge tests behind a
 * CASE, doubled the statement on 6,000 duplicates.
 */
const openChildren = `WITH snap, p, ${childrenBySnap} AS kids ` +
  `WITH snap, p, [c IN kids WHERE indegree(c, 'SUPERSEDES') = 0 AND indegree(c, 'RETRACTS') = 0] AS clean, ` +
  `[c IN kids WHERE indegree(c, 'SUPERSEDES') > 0 OR indegree(c, 'RETRACTS') > 0] AS decided ` +
  `CALL { WITH snap, decided UNWIND decided AS c ` +
  `WITH c, ${supersededAt("c")} AS cSup, ${retractedAt("c")} AS cOut WHERE NOT cSup AND NOT cOut ` +
  `RETURN collect(c) AS undecided } ` +
  `WITH snap, p, clean + undecided AS open `

/** Each COMPATIBLE record of fact `v`, either way: [the other fact, the record's stamp]. */
const compatibleWith = (v: string) =>
  oneHop({
    from: v,
    dir: "both",
    type: "COMPATIBLE",
    path: `${v}_cp`,
    to: `${v}_co`,
    yields: `[${v}_co, ${edgeOf(`${v}_cp`)}.created_at]`
  })

/** The snapshot: `$snap` (a cursor's), else `$asOf` or the graph's last stamp, whichever is earlier. */
const snapshot = `${clockRead([])}WITH clk.last AS last ` +
  `WITH coalesce($snap, CASE WHEN $asOf IS NOT NULL AND $asOf < last THEN $asOf ELSE last END) AS snap `

/**
 * The forked parents whose window admits the snapshot (forkWindow.ts): open now or closed since,
 * by their node ids, with the snapshot. A statement of its own, and a short one, because it reads
 * the MARKS stamp index: FalkorDB keeps an index scan's RediSearch iterator, and with it
 * RediSearch's read lock, until the statement ends, and that lock is one for every graph of the
 * server. A write that updates an index (every save does) waits for it while holding the server's
 * global lock, so while a statement that read an index runs, every command on every graph waits.
 * The walk over the parents' children (`openConflictsQuery`) reads no index: it takes these ids.
 */
export const forkedParentsQuery = `${snapshot}OPTIONAL MATCH ()-[fw_m:MARKS]->(p) WHERE ${admits("fw_m", "snap")} ` +
  `RETURN snap, collect(DISTINCT id(p)) AS forked`

/**
 * Open conflicts, one row per forked parent, as of a snapshot stamp: `$asOf` or the graph's last stamp,
 * whichever is earlier, on a first page, then carried by the cursor. Every later write is stamped after
 * it, so pages never shift, and what was stamped after it (facts, decisions, retractions, compatible
 * records) is invisible. The walk starts at the parents a ForkMark points at (made by the save that
 * made the fork, see saveFact.ts), never at every fact.
 *
 * Among the children that take part (see openChildren), a pair is open when the two say different
 * things and no COMPATIBLE record (stamped by the snapshot) joins them. A parent is listed when it has
 * an open pair, with exactly the children in some open pair, newest first; its key is its newest
 * listed child's created_at (stamps are unique: see stampClause), newest key first. The pairs are
 * never enumerated: children are grouped by their content key, and a child is in an open pair when
 * the open children outside its group outnumber its compatible records with them, so one parent
 * costs linear time in its children (6,000 duplicates and one differing child paired 18 million
 * times before).
 */
export const openConflictsQuery = `${snapshot}` +
  // Each parent by its node id (`$forked`): the forked parents `forkedParentsQuery` found, or a thread's members
  // (threadScope.ts), of which only the forked ones.
  `UNWIND $forked AS pid MATCH (p) WHERE id(p) = pid AND indegree(p, 'MARKS') > 0 ` +
  `WITH DISTINCT snap, p ` +
  openChildren +
  `WITH snap, p, open, all(x IN open WHERE x.hash IS NOT NULL) AS hashed ` +
  `WHERE size(open) > 1 AND any(x IN open WHERE x.norm <> open[0].norm) ` +
  // Grouped by content, never paired: a child is in an open pair when more of the open children
  // differ from it than are recorded compatible with it (one COMPATIBLE edge a pair, between siblings;
  // a merge's record with a child of another of its parents is no pair here: the other end must be
  // one of this parent's open children, which also takes part as of the snapshot). Its records are
  // counted before the grouping, where the open children are in scope, through the adjacency
  // (oneHop.ts): a COMPATIBLE traverse a child took 20 us each whether it had records or not,
  // 0.9 of the 3.5 ms a briefing's conflicts took at 100k facts.
  // Kind-less children only (a kind-less pair forks on any difference: forkRule.ts); every other
  // pair is a FORKS edge between two open children that no record joins. A child with a kind is a
  // group of its own.
  // Lists are only read in the clause right after the UNWIND: carried on, each row would copy them.
  `WITH snap, p, open, hashed, size([x IN open WHERE ${plain("x")}]) AS n ` +
  `UNWIND open AS a ` +
  `WITH snap, p, hashed, n, a, ` +
  `[e IN ${compatibleWith("a")} WHERE e[1] <= snap AND e[0] IN open AND e[0].norm <> a.norm | e[0]] AS compats, ` +
  `[y IN ${forkedWith("a")} WHERE y IN open] AS forks ` +
  `WITH snap, p, n, a, ${plain("a")} AS isPlain, ` +
  `CASE WHEN ${plain("a")} THEN ${textKey("a")} END AS g, CASE WHEN ${plain("a")} THEN -1 ELSE id(a) END AS solo, ` +
  `size([y IN compats WHERE ${plain("y")}]) AS compat, any(y IN forks WHERE NOT y IN compats) AS linked ` +
  `WITH snap, p, n, g, solo, collect([a, compat, isPlain, linked]) AS group ` +
  `UNWIND group AS ac ` +
  `WITH snap, p, ac[0] AS a, ac[3] OR (ac[2] AND n - size(group) > ac[1]) AS inPair ` +
  `WITH snap, p, collect(CASE WHEN inPair THEN a END) AS listed ` +
  `WHERE size(listed) > 0 ` +
  `WITH snap, p, listed, reduce(m = 0, x IN listed | CASE WHEN x.created_at > m THEN x.created_at ELSE m END) AS key ` +
  // A merge may be the newest child of two parents: equal keys go by the parent's own stamp.
  `WHERE key < $afterKey OR (key = $afterKey AND (p.created_at < $afterParent OR ` +
  `(p.created_at = $afterParent AND $afterChild > 0))) ` +
  `WITH snap, p, key, listed ORDER BY key DESC, p.created_at DESC LIMIT $parents ` +
  `UNWIND listed AS k ` +
  `WITH snap, p, key, size(listed) AS total, k ` +
  `WHERE key < $afterKey OR p.created_at < $afterParent OR k.created_at < $afterChild ` +
  `WITH snap, p, key, total, k ORDER BY key DESC, p.created_at DESC, k.created_at DESC ` +
  `WITH snap, p, key, total, collect(k)[0..$children] AS kids ` +
  `WITH snap, key, p.created_at AS parentKey, total, kids, ${parentMapAt("p")} AS parent ` +
  `RETURN snap, key, parentKey, total, parent, [x IN kids | ${
    childMap("x", "parent", "false", "false", staleBy("x", "snap"))
  }] AS children ` +
  `ORDER BY key DESC, parentKey DESC`

const Row = Schema.Struct({
  snap: Schema.Number,
  key: Schema.Number,
  parentKey: Schema.Number,
  total: Schema.Number,
  parent: FactFromRow,
  children: Schema.Array(FactFromRow)
})

/** A parent read for a page, with where its children stop (0: all shown). */
export interface ConflictItem {
  readonly conflict: Conflict
  readonly snap: number
  readonly key: number
  readonly parentKey: number
  readonly child: number
}

/** The parents from `request.after` on, at most `limit` + 1 (the extra one says that more remain). */
export const readConflicts = (db: GraphDatabase["Type"], request: ConflictsRequest) =>
  request.thread == null
    ? readConflictsIn(db, request, null)
    : Effect.flatMap(
      threadMembers(db, request.thread, request.after?.snap ?? request.asOf ?? null),
      (members) => readConflictsIn(db, request, members)
    )

const Forked = Schema.Struct({ snap: Schema.NullOr(Schema.Number), forked: Schema.Array(Schema.Number) })

/** The snapshot and the forked parents it admits (`forkedParentsQuery`); a graph never written has neither. */
const forkedParents = (db: GraphDatabase["Type"], snap: number | null, asOf: number | null) =>
  Effect.map(db.read(forkedParentsQuery, { snap, asOf }, Forked), (rows) => rows[0] ?? { snap: null, forked: [] })

/** readConflicts over the forked parents among the given node ids (all of them: null). */
export const readConflictsIn = (
  db: GraphDatabase["Type"],
  request: ConflictsRequest,
  thread: ReadonlyArray<number> | null
) => {
  const children = request.children ?? conflictChildrenShown
  const after = request.after
  const asOf = request.asOf ?? null
  return (thread === null
    ? forkedParents(db, after?.snap ?? null, asOf)
    : Effect.succeed({ snap: after?.snap ?? null, forked: thread })).pipe(
      Effect.flatMap(({ forked, snap }) =>
        forked.length === 0 ? Effect.succeed([]) : db.read(openConflictsQuery, {
          forked: [...forked],
          snap,
          asOf,
          afterKey: after?.key ?? Number.MAX_SAFE_INTEGER,
          afterParent: after?.parent ?? Number.MAX_SAFE_INTEGER,
          afterChild: after?.child ?? 0,
          parents: request.limit + 1,
          children: children + 1
        }, Row)
      ),
      Effect.map((rows) =>
        rows.map((r): ConflictItem => {
          const shown = r.children.slice(0, children)
          const more = r.children.length > children
          return {
            conflict: { parent: r.parent, children: shown, children_total: r.total },
            snap: r.snap,
            key: r.key,
            parentKey: r.parentKey,
            child: more ? stampOf(shown[shown.length - 1]!) : 0
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
    ? items.length === 0
      ? null
      : (request.after ??
        { snap: items[0]!.snap, key: Number.MAX_SAFE_INTEGER, parent: Number.MAX_SAFE_INTEGER, child: 0 })
    : last.child > 0 || items.length > kept.length
    ? { snap: last.snap, key: last.key, parent: last.parentKey, child: last.child }
    : null
  return { conflicts: kept.map((i) => i.conflict), next }
}

export const openConflicts = (db: GraphDatabase["Type"], request: ConflictsRequest) =>
  readConflicts(db, request).pipe(
    Effect.zip(currentBudget()),
    Effect.map(([items, budget]) => conflictsPage(items, request, budget))
  )
