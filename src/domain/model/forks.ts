import { openConflicts } from "./conflicts.js"
import type { GraphModel } from "./graph.js"
import { asOf } from "./status.js"

/**
 * What Relay stores on a forked parent's MARKS edge (layers/factStore/forkWindow.ts), so reading the
 * open conflicts starts from the parents that can have one, never from every fork: `opened`, when
 * its current open stretch began (null: it has no open pair now), and `closed`, when its last
 * stretch ended (null: never). A parent open at `t` has `opened <= t` (t is in the current stretch)
 * or `closed > t` (t is in an earlier one, which ended at or before the last end), so those two
 * tests, each served by an index, find every parent open at any snapshot; the read then decides
 * exactly. Only a write stamps a change: a save can open a stretch, a decision, a retraction or a
 * compatible record can end one.
 */
export interface ForkWindow {
  readonly opened: number | null
  readonly closed: number | null
}

/** Every stamp at which a parent's open pairs can change (confirmations change none). */
const changeStamps = (model: GraphModel): Array<number> =>
  [
    ...new Set([
      ...model.facts.map((f) => f.createdAt),
      ...model.supersedes.flatMap((s) => (s.createdAt === undefined ? [] : [s.createdAt])),
      ...(model.compatible ?? []).flatMap((c) => (c.createdAt === undefined ? [] : [c.createdAt])),
      ...(model.retractions ?? []).map((r) => r.createdAt)
    ])
  ].sort((x, y) => x - y)

/** The window of `parent` after every write of the model, each write in stamp order. */
export const forkWindow = (model: GraphModel, parent: string): ForkWindow => {
  let opened: number | null = null
  let closed: number | null = null
  for (const t of changeStamps(model)) {
    const open = openConflicts(asOf(model, t)).some((c) => c.parent === parent)
    if (open && opened === null) opened = t
    if (!open && opened !== null) {
      opened = null
      closed = t
    }
  }
  return { opened, closed }
}

/** Whether a stored window lets a read at `t` consider the parent (what forkWindow guarantees when open at t). */
export const windowAdmits = (w: ForkWindow, t: number): boolean =>
  (w.opened !== null && w.opened <= t) || (w.closed !== null && w.closed > t)
