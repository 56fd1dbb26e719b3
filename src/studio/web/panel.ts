/// <reference lib="dom" />
/**
 * The fact panel: one fact's whole text, writer, session, age, status and why, a procedure's steps,
 * versions and runs (procedure.ts), its chain and its impact, as of the time slider's instant. Only the newest request fills it: an answer for a fact
 * or an instant the person has already moved away from is dropped.
 */
import { stamp, timeEl } from "./ages.js"
import { api, type ContextOut, type Fact, type ImpactOut, now, type ProcedureView } from "./api.js"
import { el, short } from "./dom.js"
import { procedureSection } from "./procedure.js"
import type { Actions, View } from "./view.js"

/** A fact as a list entry that opens it when clicked. */
export const factLine = (f: Fact, actions: Actions, extra = "") => {
  const li = el(
    "li",
    { "data-id": f.id, class: `status-${f.status}`, tabindex: "0" },
    `${short(f.id)} ${f.written_by}${f.status === "active" ? "" : ` [${f.status}]`}${extra}: `,
    el("q", {}, f.content)
  )
  li.addEventListener("click", () => void actions.openFact(f.id))
  li.addEventListener("keydown", (e) => {
    if (e.key === "Enter") void actions.openFact(f.id)
  })
  return li
}

export const panelHint = (body: HTMLElement, text = "Click a fact to see its whole text, its chain and impact.") =>
  body.replaceChildren(el("p", { class: "hint" }, text))

/** Fills the panel with fact `id` as of view.asOf; false when a newer request took over. */
export const showFact = async (body: HTMLElement, view: View, actions: Actions, id: string): Promise<boolean> => {
  const ticket = ++view.panelTicket
  const asOf = view.asOf
  const answer = await api<{ context: ContextOut; impact: ImpactOut; procedure?: ProcedureView }>("fact", {
    id,
    as_of: asOf
  }).then(
    (a) => a,
    (e: Error) => e
  )
  if (ticket !== view.panelTicket) return false
  if (answer instanceof Error) {
    panelHint(body, asOf === null ? answer.message : `This fact was not saved yet at ${stamp(asOf)}.`)
    return true
  }
  const { context, impact, procedure } = answer
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
  // The impact is read as it is now: at an earlier instant, only what had been saved by then.
  const dependents = asOf === null
    ? impact.dependents
    : impact.dependents.filter((d) => Date.parse(d.fact.created_at) <= Date.parse(asOf))
  const impacted = el(
    "ul",
    { id: "impact" },
    ...dependents.map((d) => factLine(d.fact, actions, ` (distance ${d.distance})`))
  )
  const t = now()
  body.replaceChildren(
    el("h2", {}, "Fact"),
    el("p", { id: "fact-text", class: "fact-text" }, fact.content),
    el(
      "dl",
      {},
      el("dt", {}, "status"),
      el("dd", { id: "fact-status", class: `status-${fact.status}` }, fact.status),
      el("dt", {}, "writer"),
      el("dd", { id: "fact-writer" }, fact.written_by),
      el("dt", {}, "saved"),
      el("dd", { id: "fact-saved" }, timeEl(fact.created_at, t), ` · ${stamp(fact.created_at)}`),
      el("dt", {}, "session"),
      el("dd", {}, fact.session_id),
      el("dt", {}, "id"),
      el("dd", {}, fact.id)
    ),
    why,
    ...(procedure === undefined ? [] : [procedureSection(procedure, actions, asOf)]),
    el("h3", {}, "Chain (root first)"),
    chain,
    el("h3", {}, `Impact (${dependents.length}${impact.next_cursor === null ? "" : "+"})`),
    impacted
  )
  return true
}
