/// <reference lib="dom" />
/** The fact panel: one fact's text, writer, session, status and why, its chain and its impact. */
import { api, type ContextOut, type Fact, type ImpactOut } from "./api.js"
import { el, short } from "./dom.js"
import type { Actions, View } from "./view.js"

/** A fact as a list entry that opens it when clicked. */
export const factLine = (f: Fact, actions: Actions, extra = "") => {
  const li = el(
    "li",
    { "data-id": f.id, class: `status-${f.status}` },
    `${short(f.id)} ${f.written_by}${f.status === "active" ? "" : ` [${f.status}]`}${extra}: `,
    el("q", {}, f.content)
  )
  li.addEventListener("click", () => void actions.openFact(f.id))
  return li
}

export const showFact = async (panel: HTMLElement, view: View, actions: Actions, id: string) => {
  const asOf = { as_of: view.asOf }
  const { context, impact } = await api<{ context: ContextOut; impact: ImpactOut }>("fact", { id, ...asOf })
  const fact = context.chain[context.chain.length - 1]!
  const why = el("ul", { id: "why" })
  for (const s of context.superseded_by.filter((s) => s.fact_id === id)) {
    why.append(
      el(
        "li",
        {},
        `superseded by ${short(s.winner_id)} (`,
        el("q", {}, s.winner_content),
        `), decided by ${s.resolved_by}: ${s.reason}`
      )
    )
  }
  const retraction = view.retractions.get(id)
  if (fact.status === "retracted") {
    why.append(
      el("li", {}, retraction === undefined ? "retracted" : `retracted by ${retraction.by}: ${retraction.reason}`)
    )
  }
  if (fact.status === "stale") why.append(el("li", {}, "stale: something it builds on was superseded or retracted"))
  const chain = el("ol", { id: "chain" }, ...context.chain.map((f) => factLine(f, actions)))
  const impacted = el(
    "ul",
    { id: "impact" },
    ...impact.dependents.map((d) => factLine(d.fact, actions, ` (distance ${d.distance})`))
  )
  panel.replaceChildren(
    el("h2", {}, "Fact"),
    el("p", { id: "fact-text", class: "fact-text" }, fact.content),
    el(
      "dl",
      {},
      el("dt", {}, "id"),
      el("dd", {}, fact.id),
      el("dt", {}, "writer"),
      el("dd", { id: "fact-writer" }, fact.written_by),
      el("dt", {}, "session"),
      el("dd", {}, fact.session_id),
      el("dt", {}, "saved"),
      el("dd", {}, fact.created_at),
      el("dt", {}, "status"),
      el("dd", { id: "fact-status" }, fact.status)
    ),
    why,
    el("h3", {}, "Chain (root first)"),
    chain,
    el("h3", {}, `Impact (${impact.dependents.length}${impact.next_cursor === null ? "" : "+"})`),
    impacted
  )
}
