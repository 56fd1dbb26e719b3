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
import { leftOutCap } from "../../domain/paging.js"
import { list, more, type Page, quote, type Render } from "./page.js"
import { conflict, decisionLines, dependent } from "./parts.js"

export const renderContext: Render<typeof ContextOutput.Type> = (o, p) => {
  // A winner's text once, however many facts of the chain lost to it.
  const line = decisionLines(p, new Set(o.chain.map((f) => f.id)))
  return [
    // Each fact builds on the one above it, so parents go unsaid but for the first.
    ...list("Chain, root first", o.chain, (f) => p.fact(f, { parent: f === o.chain[0] }), "none"),
    ...list(
      "Why superseded",
      o.superseded_by,
      (d) => `${p.id(d.fact_id)} ${line("lost to", d.fact_id, d.winner_id, d.winner_content, d)}`,
      null
    ),
    ...more(o, "relay_get_context")
  ]
}

export const renderImpact: Render<typeof ImpactOutput.Type> = (o, p) => [
  ...list(
    `Facts that build on ${p.id(o.fact_id)}, by distance`,
    o.dependents,
    dependent(p, o.fact_id),
    "none",
    o.next_cursor !== null
  ),
  ...more(o, `relay_get_impact fact_id ${JSON.stringify(p.id(o.fact_id))}`)
]

/** Nothing hidden without a word: what a status filter passed over, and how to see it. */
const leftOutLine = (n: number | undefined, where: string): Array<string> =>
  n === undefined || n === 0 ? [] : [
    `${n >= leftOutCap ? `${leftOutCap}+` : n} fact(s) ${where} left out as stale, superseded or retracted ` +
    `(status "any" shows them)`
  ]

export const renderCurrentState: Render<typeof CurrentStateOutput.Type> = (o, p) => [
  ...list("Recent facts, newest first", o.facts, (f) => p.fact(f), "none yet", o.next_cursor !== null),
  ...leftOutLine(o.left_out, "of this page's span"),
  ...more(o, "relay_get_current_state")
]

export const renderConflicts: Render<typeof ConflictsOutput.Type> = (o, p) => [
  ...list("Open conflicts", o.conflicts, conflict(p), "none", o.next_cursor !== null),
  ...more(o, "relay_detect_conflicts")
]

export const renderImportantFacts: Render<typeof ImportantFactsOutput.Type> = (o, p) => [
  ...list(
    `Most built-upon facts, with score${o.as_of === null ? "" : ` (as of ${o.as_of})`}`,
    o.facts,
    (x) => `${x.score.toFixed(3)} ${p.fact(x.fact)}`,
    "none yet",
    o.next_cursor !== null
  ),
  ...more(o, "relay_get_important_facts")
]

/** A search hit: the fact once, then the decisions it won or lost (decisionLines). */
const searchHit = (p: Page, line: ReturnType<typeof decisionLines>) => (h: SearchHit) =>
  [
    `${h.weak === true ? "(weak match) " : ""}${p.fact(h.fact)}`,
    ...h.superseded_by.map((d) => `  ${line("lost to", h.fact.id, d.winner_id, d.winner_content, d)}`),
    ...h.supersedes.map((d) => `  ${line("won over", h.fact.id, d.loser_id, d.loser_content, d)}`)
  ].join("\n")

export const renderSearch: Render<typeof SearchOutput.Type> = (o, p) => [
  ...(o.note === undefined ? [] : [`${o.note}.`]),
  ...list(
    "Matches, best first",
    o.hits,
    searchHit(p, decisionLines(p, new Set(o.hits.map((h) => h.fact.id)))),
    "none (no fact of the statuses asked matches any item)",
    o.next_cursor !== null
  ),
  ...leftOutLine(o.left_out, "matching"),
  ...more(o, "relay_search")
]

export const renderClusters: Render<typeof ClustersOutput.Type> = (o, p) => [
  ...list("Clusters, largest first", o.clusters, (c) =>
    [
      `cluster ${c.id}, ${c.size} fact(s)${c.facts.length < c.size ? ` (the oldest ${c.facts.length} shown)` : ""}, ` +
      `${c.open_conflicts} open conflict(s), last active ${p.when(c.last_activity)}, thread ${p.id(c.thread)}` +
      // The label is the oldest fact's text: said when that fact is not written out below.
      `${c.facts[0]?.id === c.thread ? "" : ` ${quote(c.label)}`}:`,
      ...c.facts.map((f) => `  ${p.fact(f)}`)
    ].join("\n"), "none yet"),
  ...(o.next_cursor === null
    ? []
    : [
      `(${o.total_clusters - (o.clusters.at(-1)?.id ?? 0)} smaller cluster(s) not shown)`,
      ...more(o, "relay_get_clusters")
    ])
]
