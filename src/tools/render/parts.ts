import type { Conflict, Decision, Dependent, Withdrawal } from "../../domain/fact.js"
import { list, type Page, quote } from "./page.js"

/** A forked parent and its open children, each fact in full only where it first appears in the reply. */
export const conflict = (p: Page) => (c: Conflict) =>
  [
    `under ${p.ref(c.parent)} (${c.children_total} open${
      c.children.length < c.children_total ? `, ${c.children.length} shown` : ""
    }):`,
    // The line above names their parent.
    ...c.children.map((f) => `  ${p.ref(f, { parent: false })}`)
  ].join("\n")

/** A decision names both sides, each with its text where the reply first names it (structuredContent has the rest). */
export const decision = (p: Page) => (d: Decision) =>
  `${p.named(d.winner)} supersedes ${p.named(d.loser)} because ${quote(d.reason)} (${d.resolved_by}, ${
    p.when(d.created_at)
  })`

interface Decided {
  readonly reason: string
  readonly resolved_by: string
  readonly created_at: string
}

/**
 * A reply's lines for the decisions its facts won or lost (`lost to <id> "<text>" because ...`),
 * each fact and each decision written out once: the other fact's text only when it is not one of
 * the reply's own facts (`shown`) and was not written out before, and a decision met from both of
 * its facts in full only the first time.
 */
export const decisionLines = (p: Page, shown: ReadonlySet<string>) => {
  const told = new Set<string>()
  return (side: "lost to" | "won over", fact: string, other: string, content: string, d: Decided) => {
    const decision = side === "lost to" ? `${other}>${fact}` : `${fact}>${other}`
    if (told.has(decision)) return `${side} ${p.id(other)} (the decision above)`
    told.add(decision)
    const text = shown.has(other) || told.has(other) ? "" : ` ${quote(content)}`
    told.add(other)
    return `${side} ${p.id(other)}${text} because ${quote(d.reason)} (${d.resolved_by}, ${p.when(d.created_at)})`
  }
}

/** A retraction: who withdrew which fact and why, the fact in full only where it first appears. */
export const withdrawal = (p: Page) => (w: Withdrawal) =>
  [
    `${p.id(w.fact.id)} retracted because ${quote(w.reason)} (${w.retracted_by}, ${p.when(w.created_at)})`,
    ...(p.seen(w.fact.id) ? [] : [`  ${p.fact(w.fact)}`])
  ].join("\n")

/** `<distance>: <fact>`, for what builds on `root`; a fact built right on it leaves its parent unsaid (the title names it). */
export const dependent = (p: Page, root: string) => (d: Dependent) =>
  `${d.distance}: ${p.fact(d.fact, { parent: d.fact.parent_id !== root })}`

/**
 * What a write left stale (it built on the loser or the retracted fact), and where the rest of the
 * list is when it goes on: relay_get_impact on that fact.
 */
export const staleLines = (
  p: Page,
  title: string,
  o: { readonly stale: ReadonlyArray<Dependent>; readonly stale_next_cursor: string | null },
  on: string
) => [
  ...list(title, o.stale, dependent(p, on), null),
  ...(o.stale.length === 0 ? [] : ["One that still holds: relay_confirm_fact on it."]),
  ...(o.stale_next_cursor === null ?
    [] :
    [`More stale facts: relay_get_impact on ${p.id(on)} with cursor ${quote(o.stale_next_cursor)}.`])
]
