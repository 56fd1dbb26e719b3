import type { Fact } from "./fact.js"

/**
 * A thread as a Mermaid flowchart, top-down: each fact a node (short id, author, text cut to
 * `textMax` characters) styled by its status, BUILDS_ON drawn parent -> child, SUPERSEDES as a
 * dotted "supersedes" edge from winner to loser, and a parent whose children say different things
 * marked as a fork. Fact text is model-written: every character outside a small safe set is written
 * as a Mermaid entity (`#<code>;`), so no text can end a label, start a statement, add a link or
 * markup, or hide a line break.
 */
export const textMax = 80

const safe = /[A-Za-z0-9 .,:!?()_+=-]/

/** Text as the inside of a quoted Mermaid label. */
export const mermaidText = (text: string): string => {
  let out = ""
  for (const ch of text) {
    out += safe.test(ch) ? ch : ch === "\n" || ch === "\r" || ch === "\t" ? " " : `#${ch.codePointAt(0)};`
  }
  return out
}

const cut = (text: string): string => {
  const chars = [...text.replace(/\s+/g, " ").trim()]
  return chars.length > textMax ? `${chars.slice(0, textMax - 1).join("")}…` : chars.join("")
}

const node = (id: string) => `f_${id.replace(/[^0-9a-f]/g, "")}`

export interface MermaidDecision {
  readonly winner_id: string
  readonly loser_id: string
}

/**
 * `marks`, when given, are the forks to mark (the studio's: open conflicts as relay_detect_conflicts
 * lists them, and conflicts a decision settled) instead of every parent whose children differ.
 */
export const threadMermaid = (
  facts: ReadonlyArray<Fact>,
  decisions: ReadonlyArray<MermaidDecision>,
  more: boolean,
  marks?: ReadonlyMap<string, "open" | "settled">
): string => {
  const shown = new Set(facts.map((f) => f.id))
  const children = new Map<string, Set<string>>()
  for (const f of facts) {
    if (f.parent_id === null || f.status === "retracted") continue
    const norms = children.get(f.parent_id) ?? new Set<string>()
    norms.add(f.content.trim().replace(/\s+/g, " ").toLowerCase())
    children.set(f.parent_id, norms)
  }
  const lines = ["flowchart TD"]
  for (const f of facts) {
    const mark = marks?.get(f.id)
    const fork = marks === undefined
      ? (children.get(f.id)?.size ?? 0) > 1 ? " (fork)" : ""
      : mark === undefined
      ? ""
      : ` (${mark} conflict)`
    const status = f.status === "active" ? "" : ` (${f.status})`
    lines.push(
      `  ${node(f.id)}["${
        mermaidText(`${f.id.slice(0, 8)} ${f.written_by}${status}${fork}: ${cut(f.content)}`)
      }"]:::${f.status}`
    )
  }
  for (const f of facts) {
    if (f.parent_id !== null && shown.has(f.parent_id)) lines.push(`  ${node(f.parent_id)} --> ${node(f.id)}`)
  }
  const drawn = new Set<string>()
  for (const d of decisions) {
    const key = `${d.winner_id} ${d.loser_id}`
    if (drawn.has(key) || !shown.has(d.winner_id) || !shown.has(d.loser_id)) continue
    drawn.add(key)
    lines.push(`  ${node(d.winner_id)} -. supersedes .-> ${node(d.loser_id)}`)
  }
  if (more) lines.push("  %% more facts follow: read the next page")
  lines.push(
    "  classDef active fill:#e8f5e9,stroke:#2e7d32",
    "  classDef superseded fill:#eeeeee,stroke:#9e9e9e,color:#616161",
    "  classDef stale fill:#fff8e1,stroke:#f9a825",
    "  classDef retracted fill:#ffebee,stroke:#c62828,color:#b71c1c"
  )
  return lines.join("\n")
}
