import type {
  ClustersOutput,
  ConflictsOutput,
  ContextOutput,
  CurrentStateOutput,
  ImpactOutput,
  ImportantFactsOutput,
  SearchHit,
  SearchOutput
} from "../../domain/outputs.js"
import { list, more, type Page, quote, type Render } from "./page.js"
import { conflict, dependent } from "./parts.js"

export const renderContext: Render<typeof ContextOutput.Type> = (o, p) => [
  // Each fact builds on the one above it, so parents go unsaid but for the first.
  ...list("Chain, root first", o.chain, (f) => p.fact(f, { parent: f === o.chain[0] }), "none"),
  ...more(o)
]

export const renderImpact: Render<typeof ImpactOutput.Type> = (o, p) => [
  ...list(`Facts that build on ${p.id(o.fact_id)}, by distance`, o.dependents, dependent(p), "none"),
  ...more(o)
]

export const renderCurrentState: Render<typeof CurrentStateOutput.Type> = (o, p) => [
  ...list("Recent facts, newest first", o.facts, (f) => p.fact(f), "none yet"),
  ...more(o)
]

export const renderConflicts: Render<typeof ConflictsOutput.Type> = (o, p) => [
  ...list("Open conflicts", o.conflicts, conflict(p), "none"),
  ...more(o)
]

export const renderImportantFacts: Render<typeof ImportantFactsOutput.Type> = (o, p) => [
  ...list("Most built-upon facts, with score", o.facts, (x) => `${x.score.toFixed(3)} ${p.fact(x.fact)}`, "none yet"),
  ...more(o)
]

/** One decision a hit took part in: the other fact by short id and text, the reason, who and when. */
const sideLine = (
  p: Page,
  side: string,
  id: string,
  content: string,
  d: { readonly reason: string; readonly resolved_by: string; readonly created_at: string }
) => `  ${side} ${p.id(id)} ${quote(content)} because ${quote(d.reason)} (${d.resolved_by}, ${p.when(d.created_at)})`

/** A search hit: the fact once, its decisions by the other fact's short id and text. */
const searchHit = (p: Page) => (h: SearchHit) =>
  [
    p.fact(h.fact),
    ...h.superseded_by.map((d) => sideLine(p, "lost to", d.winner_id, d.winner_content, d)),
    ...h.supersedes.map((d) => sideLine(p, "won over", d.loser_id, d.loser_content, d))
  ].join("\n")

export const renderSearch: Render<typeof SearchOutput.Type> = (o, p) => [
  ...list("Matches, best first", o.hits, searchHit(p), "none"),
  ...more(o)
]

export const renderClusters: Render<typeof ClustersOutput.Type> = (o, p) => [
  ...list("Clusters, largest first", o.clusters, (c) =>
    [
      `cluster ${c.id}, ${c.size} fact(s)${c.facts.length < c.size ? ` (the oldest ${c.facts.length} shown)` : ""}:`,
      ...c.facts.map((f) => `  ${p.fact(f)}`)
    ].join("\n"), "none yet"),
  ...(o.next_cursor === null
    ? []
    : [`(${o.total_clusters - (o.clusters.at(-1)?.id ?? 0)} smaller cluster(s) not shown)`, ...more(o)])
]
