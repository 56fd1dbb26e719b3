import { Schema } from "effect"
import { characterCount } from "../../domain/content.js"
import { IsoFromStamp } from "../../domain/time.js"
import { edgeOf, oneHop } from "./oneHop.js"

/** How many decisions a fact carries each way in a read, and how much of the other fact's text. */
export const decisionsPerFact = 3
const otherTextLength = 160

/**
 * The decisions a fact bound as `v` lost, the oldest `decisionsPerFact`: the winner's id and text and
 * the decision's fields. As of `$asOf` when it is not null. The comprehension's variables are named
 * after `v` (see projection.ts on FalkorDB 4.16's binding).
 */
export const lostComprehension = (v: string): string => decisions(v, "in", `${v}_lost`)

/** The decisions a fact bound as `v` won, as `lostComprehension` with the loser in place of the winner. */
export const wonComprehension = (v: string): string => decisions(v, "out", `${v}_won`)

/**
 * The SUPERSEDES edges at `v` one way, each as the fact at the other end and the decision's fields,
 * the oldest decisions kept. A traversal yields edges in no stated order (FalkorDB 4.16's plain one
 * gave the other fact's node id ascending, its path walk descending), so each is paired with its
 * stamp and id, unique in the graph, and sorted before the cut: the list comes oldest first.
 */
const decisions = (v: string, dir: "in" | "out", path: string): string => {
  const d = edgeOf(path)
  const other = `${path}_f`
  const each = oneHop({
    from: v,
    dir,
    type: "SUPERSEDES",
    path,
    to: other,
    where: `$asOf IS NULL OR ${d}.created_at <= $asOf`,
    yields: `[${d}.created_at, ${other}.id, {id: ${other}.id, content: ${other}.content, reason: ${d}.reason, ` +
      `resolved_by: ${d}.resolved_by, created_at: ${d}.created_at}]`
  })
  return `[${path}_k IN list.sort(${each})[..${decisionsPerFact}] | ${path}_k[2]]`
}

/** The other fact of a decision, and the decision. */
export const DecisionRow = Schema.Struct({
  id: Schema.String,
  content: Schema.String,
  reason: Schema.String,
  resolved_by: Schema.String,
  created_at: IsoFromStamp
})
export type DecisionRow = typeof DecisionRow.Type

/** Cut at whole code points, marked with an ellipsis. */
const short = (text: string): string =>
  characterCount(text) <= otherTextLength ? text : `${[...text].slice(0, otherTextLength - 1).join("")}…`

/** What a decision says whichever side the fact was on. */
const decided = (d: DecisionRow) => ({ reason: d.reason, resolved_by: d.resolved_by, created_at: d.created_at })

/** A decision the fact lost: the winner by id and short text. */
export const lostTo = (d: DecisionRow) => ({ winner_id: d.id, winner_content: short(d.content), ...decided(d) })

/** A decision the fact won: the loser by id and short text. */
export const wonOver = (d: DecisionRow) => ({ loser_id: d.id, loser_content: short(d.content), ...decided(d) })
