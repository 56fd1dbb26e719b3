/**
 * Draws the memory as a tree of threads: each root fact with everything that builds on it, each
 * fact marked with its status (✓ active, ✗ superseded, ⚠ stale), the winner of a resolution
 * starred and a parent with disagreeing children marked as a fork: open, settled, or of
 * compatible children that both stand.
 */
import { normaliseContent } from "../domain/content.js"
import type { Fact } from "../domain/fact.js"
import type { Style } from "./style.js"

export interface DrawnDecision {
  readonly winnerId: string
  readonly loserId: string
}

const MAX_CONTENT = 72

const quoted = (content: string) =>
  JSON.stringify(content.length > MAX_CONTENT ? `${content.slice(0, MAX_CONTENT - 1)}…` : content)

/** Oldest first; ISO strings of one format sort like the instants they name. */
const byAge = (facts: ReadonlyArray<Fact>) =>
  [...facts].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0))

export const legend = (style: Style): string =>
  `${style.green("✓ active")}   ${style.red("✗ superseded")}   ${style.yellow("⚠ stale")}   ` +
  `${style.bold("★ winner")}   ${style.cyan("⑂ fork")}`

/** The lines of the drawing, one thread after another, oldest thread first. */
export const drawTree = (
  facts: ReadonlyArray<Fact>,
  decisions: ReadonlyArray<DrawnDecision>,
  style: Style,
  compatible: ReadonlyArray<readonly [string, string]> = []
): Array<string> => {
  const ids = new Set(facts.map((f) => f.id))
  const children = new Map<string, Array<Fact>>()
  const roots: Array<Fact> = []
  for (const f of byAge(facts)) {
    if (f.parent_id === null || !ids.has(f.parent_id)) roots.push(f)
    else children.set(f.parent_id, [...(children.get(f.parent_id) ?? []), f])
  }
  const winners = new Set(decisions.map((d) => d.winnerId))
  const losers = new Set(decisions.map((d) => d.loserId))
  const pairKey = (a: string, b: string) => (a < b ? `${a} ${b}` : `${b} ${a}`)
  const compatiblePairs = new Set(compatible.map(([a, b]) => pairKey(a, b)))

  /** Children that still stand and say different things, with no compatible record joining them. */
  const openPair = (kids: ReadonlyArray<Fact>) => {
    const standing = kids.filter((k) => k.status !== "superseded" && k.status !== "retracted")
    return standing.some((x, i) =>
      standing.slice(i + 1).some((y) =>
        normaliseContent(x.content) !== normaliseContent(y.content) && !compatiblePairs.has(pairKey(x.id, y.id))
      )
    )
  }

  const mark = (f: Fact) =>
    f.status === "superseded" ? style.red("✗") : f.status === "stale" ? style.yellow("⚠") : style.green("✓")

  const tags = (f: Fact): Array<string> => {
    const out: Array<string> = []
    if (winners.has(f.id)) out.push(style.bold(style.green("★ winner")))
    if (f.status === "superseded") out.push(style.red(losers.has(f.id) ? "superseded (loser)" : "superseded"))
    if (f.status === "stale") out.push(style.yellow("stale: builds on a superseded fact"))
    const kids = children.get(f.id) ?? []
    if (new Set(kids.map((k) => normaliseContent(k.content))).size > 1) {
      const both = kids.some((x) => kids.some((y) => compatiblePairs.has(pairKey(x.id, y.id))))
      out.push(
        style.cyan(openPair(kids) ? "⑂ fork: open conflict" : both ? "⑂ fork: both stand" : "⑂ fork: settled")
      )
    }
    return out
  }

  const line = (f: Fact) => {
    const text = f.status === "active" ? quoted(f.content) : style.dim(quoted(f.content))
    return [mark(f), text, style.dim(`· ${f.written_by}`), ...tags(f)].join(" ")
  }

  const lines: Array<string> = []
  const walk = (f: Fact, indent: string) => {
    const kids = children.get(f.id) ?? []
    kids.forEach((k, i) => {
      const last = i === kids.length - 1
      lines.push(`${indent}${last ? "└─ " : "├─ "}${line(k)}`)
      walk(k, `${indent}${last ? "   " : "│  "}`)
    })
  }

  roots.forEach((root, i) => {
    const size = countTree(root.id, children)
    const writers = [...new Set(collect(root, children).map((f) => f.written_by))].sort().join(", ")
    if (i > 0) lines.push("")
    lines.push(style.bold(`Thread ${i + 1}`) + style.dim(` · ${size} fact${size === 1 ? "" : "s"} · ${writers}`))
    lines.push(line(root))
    walk(root, "")
  })
  return lines
}

const collect = (root: Fact, children: ReadonlyMap<string, ReadonlyArray<Fact>>): Array<Fact> => [
  root,
  ...(children.get(root.id) ?? []).flatMap((k) => collect(k, children))
]

const countTree = (id: string, children: ReadonlyMap<string, ReadonlyArray<Fact>>): number =>
  1 + (children.get(id) ?? []).reduce((n, k) => n + countTree(k.id, children), 0)
