import { Effect, Schema } from "effect"
import type { GraphDatabaseShape } from "../../services/GraphDatabase.js"
import type { ForkDrift } from "../../services/StoreCheck.js"
import { clockRead } from "../database/clock.js"
import { neverClosed, notOpen } from "./forkMark.js"
import { forkedWith, plain } from "./forkRule.js"
import { oneHop } from "./oneHop.js"

/**
 * Each forked parent's window (domain/model/forks.ts), kept on its MARKS edge by the write that
 * changes it, in the same statement: `opened`, the stamp its current open stretch began
 * (`notOpen` when it has no open pair now), and `closed`, the stamp its last stretch ended
 * (`neverClosed`). Every edge has both, so the range indexes on them (graphIndexes.ts) serve the
 * read's two tests (`admits`): the open conflicts start from the parents open now or closed since
 * the snapshot, never from every fork. A write can only make a window admit more than the rule
 * says (a migration's or an import's windows do), never less, so a read that then decides exactly
 * stays exact; check-db --verify checks that `opened` says whether a parent is open now.
 */

/** Whether the MARKS edge bound as `m` lets a read at the snapshot `snap` consider its parent. */
export const admits = (m: string, snap: string): string => `(${m}.opened <= ${snap} OR ${m}.closed > ${snap})`

/** A child of a parent takes part now: neither superseded nor retracted (as conflicts.ts, at now). */
const takesPart = (c: string) => `indegree(${c}, 'SUPERSEDES') = 0 AND indegree(${c}, 'RETRACTS') = 0`

/**
 * Binds `fw_open`: whether the parent bound as `p` has an open pair now (domain/model/conflicts.ts),
 * carrying `carry`. Its kind-less children that take part differ in (n² - Σ g²) / 2 pairs, g the
 * sizes of the groups of one normalised text (counted on the sorted texts), and each COMPATIBLE
 * record between two of them (a merge's record may join it to a child of another parent) joins one
 * such pair: an open kind-less pair is left iff the pairs outnumber the records. Every other pair is
 * a FORKS edge (forkRule.ts): open when both ends take part and no record joins them. Linear in the
 * children and their edges (6,000 duplicates and one differing child: no pairing), but for the sort.
 */
/** The facts a COMPATIBLE record joins to the child `fw_k`, through a path named `path` to `to`. */
const compatOf = (path: string, to: string) =>
  oneHop({ from: "fw_k", dir: "both", type: "COMPATIBLE", path, to, yields: to })

export const openNow = (p: string, carry: ReadonlyArray<string>): string => {
  const keep = [...carry, p].join(", ")
  // Along the parent's own adjacency, a type at a time (oneHop.ts): the two-type comprehension built a
  // matrix a row, half of an import's window pass (PROFILE, bench/importPlans.ts).
  const kids = `${oneHop({ from: p, dir: "in", type: "BUILDS_ON", path: "fw_bp", to: "fw_bx", yields: "fw_bx" })} + ${
    oneHop({ from: p, dir: "in", type: "ALSO_ON", path: "fw_ap", to: "fw_ax", yields: "fw_ax" })
  }`
  return `WITH ${keep}, [fw_c IN ${kids} WHERE ${takesPart("fw_c")}] AS fw_kids ` +
    `WITH ${keep}, fw_kids, [fw_c IN fw_kids WHERE ${plain("fw_c")}] AS fw_plain ` +
    `WITH ${keep}, fw_kids, size(fw_plain) AS fw_n, reduce(fw_acc = [null, 0, 0], fw_t IN list.sort([fw_k IN fw_plain | fw_k.norm]) | ` +
    `CASE WHEN fw_t = fw_acc[0] THEN [fw_t, fw_acc[1] + 1, fw_acc[2] + 2 * fw_acc[1] + 1] ` +
    `ELSE [fw_t, 1, fw_acc[2] + 1] END)[2] AS fw_sq ` +
    // One row a child (a comprehension inside reduce() over the children miscounts in FalkorDB 4.16).
    `UNWIND CASE WHEN size(fw_kids) = 0 THEN [null] ELSE fw_kids END AS fw_k ` +
    // The record's other end among the children that take part: a child of this parent (oneHop.ts:
    // a COMPATIBLE traverse a row cost ~20 us at 100k facts, records or not). The list of children is
    // read only here: carried to a later clause, every row would copy it.
    `WITH ${keep}, fw_n, fw_sq, CASE WHEN ${plain("fw_k")} THEN size([fw_b IN ${
      compatOf("fw_kp", "fw_y")
    } WHERE fw_b IN fw_kids AND ` +
    `${plain("fw_b")} AND fw_b.norm <> fw_k.norm]) ELSE 0 END AS fw_kc, ` +
    `CASE WHEN fw_k IS NULL THEN 0 WHEN any(fw_e IN ${forkedWith("fw_k")} WHERE fw_e IN fw_kids AND ` +
    `NOT fw_e IN ${compatOf("fw_kq", "fw_z")}) THEN 1 ELSE 0 END AS fw_ke ` +
    `WITH ${keep}, fw_n, fw_sq, sum(fw_kc) AS fw_cc, sum(fw_ke) AS fw_ce ` +
    `WITH ${keep}, fw_n * fw_n - fw_sq > fw_cc OR fw_ce > 0 AS fw_open `
}

/**
 * After a write stamped `at` that may have ended pairs under the parent bound as `p` (null: none),
 * when `when` holds: its window as the model keeps it. Still open: unchanged; open until now: ended
 * at `at`; open again (a revision's new fact): from `at`. A parent without a MARKS edge never had an
 * open pair (the save that made the first differing pair made the edge). Carries `carry`.
 */
export const settleFork = (p: string, at: string, when: string, carry: ReadonlyArray<string>): string =>
  `${openNow(p, carry)}` +
  `OPTIONAL MATCH (${p})<-[fw_m:MARKS]-(:ForkMark) ` +
  `WITH ${[...carry, p].join(", ")}, fw_open, collect(fw_m) AS fw_ms ` +
  `FOREACH (fw_e IN CASE WHEN ${when} THEN fw_ms ELSE [] END | SET fw_e.closed = CASE WHEN NOT fw_open AND ` +
  `coalesce(fw_e.opened, ${notOpen}) < ${notOpen} THEN ${at} ELSE coalesce(fw_e.closed, ${neverClosed}) END) ` +
  `FOREACH (fw_e IN CASE WHEN ${when} THEN fw_ms ELSE [] END | SET fw_e.opened = CASE WHEN NOT fw_open ` +
  `THEN ${notOpen} WHEN coalesce(fw_e.opened, ${notOpen}) < ${notOpen} THEN fw_e.opened ELSE ${at} END) `

export const forkBatch = 10_000

/**
 * Windows from what the edges say now, for graphs whose history this process did not write (a
 * migration, an import): open now, open since forever (0); closed now, closed at `$last` (the
 * graph's last stamp, read first) at the latest. Both admit every snapshot the true window admits,
 * and more: the read decides. One statement the next `forkBatch` ForkMarks after `$after`, in id
 * order (their own label's scan, whatever other nodes sit between their ids); it returns the last.
 */
const rewindQueryOf = (batch: number) =>
  `MATCH (fm:ForkMark) WHERE id(fm) > $after WITH fm LIMIT ${batch} ` +
  `MATCH (fm)-[m:MARKS]->(p) ` +
  openNow("p", ["fm", "m"]) +
  `SET m.opened = CASE WHEN fw_open THEN 0 ELSE ${notOpen} END, ` +
  `m.closed = CASE WHEN fw_open OR coalesce(m.closed, ${neverClosed}) > $last THEN coalesce(m.closed, ${neverClosed}) ` +
  `ELSE $last END ` +
  `RETURN max(id(fm)) AS last, count(*) AS n`
export const rewindQuery = rewindQueryOf(forkBatch)

/**
 * ForkMarks a statement of check-db --verify, which runs beside other clients: 10,000 took 2.1 s of
 * the server's time at 1M facts under load, past the statement limit.
 */
export const verifyForkBatch = 1_000

/** What check-db --verify reports of a fork: a window missing, or saying open where the parent is not, or the reverse. */
const driftQuery = `MATCH (fm:ForkMark) WHERE id(fm) > $after WITH fm LIMIT ${verifyForkBatch} ` +
  `MATCH (fm)-[m:MARKS]->(p) ` +
  openNow("p", ["fm", "m"]) +
  `RETURN max(id(fm)) AS last, count(*) AS n, collect(CASE WHEN m.opened IS NULL OR m.closed IS NULL OR ` +
  `(m.opened < ${notOpen}) <> fw_open THEN [p.id, m.opened, fw_open] END) AS drifted`

const BatchRow = Schema.Struct({ last: Schema.NullOr(Schema.Number), n: Schema.Number })
const LastRow = Schema.Struct({ last: Schema.NullOr(Schema.Number) })
export const lastStampQuery = `${clockRead([])}RETURN clk.last AS last`

/** Every ForkMark's window from its edges now (rewindQuery), in bounded statements. */
export const rewindForks = Effect.fn("relay/factStore/rewindForks")(function*(
  db: Pick<GraphDatabaseShape, "read" | "write">,
  /** ForkMarks a statement (an import, which runs beside other clients, takes fewer: 10,000 took 2.8 s at 50k facts). */
  batch = forkBatch
) {
  const last = (yield* db.read(lastStampQuery, {}, LastRow))[0]?.last ?? 0
  const query = batch === forkBatch ? rewindQuery : rewindQueryOf(batch)
  for (let after = -1;;) {
    const row = (yield* db.write(query, { after, last }, BatchRow))[0]
    if (row === undefined || row.last === null || row.n < batch) return
    after = row.last
  }
})

const DriftRow = Schema.Struct({
  last: Schema.NullOr(Schema.Number),
  n: Schema.Number,
  drifted: Schema.Array(Schema.Tuple(Schema.String, Schema.NullOr(Schema.Number), Schema.Boolean))
})

/** The forks whose window disagrees with their parent's pairs now, and how many forks there are. */
export const forkDrift = Effect.fn("relay/factStore/forkDrift")(function*(db: Pick<GraphDatabaseShape, "read">) {
  const drifted: Array<ForkDrift> = []
  let forks = 0
  for (let after = -1;;) {
    const row = (yield* db.read(driftQuery, { after }, DriftRow))[0]
    if (row === undefined || row.last === null) break
    forks += row.n
    drifted.push(...row.drifted.map(([id, opened, open]) => ({ id, opened, open })))
    if (row.n < verifyForkBatch) break
    after = row.last
  }
  return { forks, drifted }
})
