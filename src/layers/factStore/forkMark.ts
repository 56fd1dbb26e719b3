import { neverStale } from "./staleness.js"

/** A MARKS edge's `opened` while its parent has no open pair, and its `closed` before any stretch ended (forkWindow.ts). */
export const notOpen = neverStale
export const neverClosed = -1

/**
 * The one write of a parent's ForkMark (every writer's: a save, a batch of saves, an import, the
 * migration): made if missing, with the parent's root, and `opened` at `at` when `opens` holds and
 * no stretch is open already (an open one is kept). It ends none. The parent is bound as `p`; the
 * edge is `fw_m`.
 */
export const writeMark = (p: string, opens: string, at: string): string =>
  `MERGE (:ForkMark)-[fw_m:MARKS]->(${p}) ` +
  `SET fw_m.root = ${p}.root, fw_m.closed = coalesce(fw_m.closed, ${neverClosed}), fw_m.opened = CASE WHEN ${opens} AND ` +
  `coalesce(fw_m.opened, ${notOpen}) >= ${notOpen} THEN ${at} ELSE coalesce(fw_m.opened, ${notOpen}) END`

/**
 * Whether a save's new child (made by this statement when `made`) opens a stretch: one of the
 * siblings it differs from (`differing`, bound by siblingPicture.ts; retracted ones are not among
 * them) is not superseded.
 */
export const opensWindow = (differing: string, made: string, x = "x"): string =>
  `${made} AND any(${x} IN ${differing} WHERE indegree(${x}, 'SUPERSEDES') = 0)`

/**
 * A save's mark (the rule: domain/forkMarks.ts), made or kept when the new child (stamped
 * `f.created_at`) differs from a sibling (`differing`).
 */
export const markFork = (differing: string, made: string): string =>
  `FOREACH (_ IN CASE WHEN size(${differing}) > 0 THEN [1] ELSE [] END | ${
    writeMark("p", opensWindow(differing, made), "f.created_at")
  }) `
