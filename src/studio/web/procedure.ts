/// <reference lib="dom" />
/**
 * A procedure in the fact panel (issue 44): its checks before its steps (a revision's lesson, its
 * first check, marked as such), its versions oldest first with each one's own run counts, and its
 * run record newest first, one page at a time ("N more runs"). Counts read as the tools write them.
 */
import { countsLine } from "../../tools/render/procedures.js"
import { timeEl } from "./ages.js"
import { api, now, type ProcedureView, type Run } from "./api.js"
import { el, short } from "./dom.js"
import type { Actions } from "./view.js"

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`

/** A version in the lineage: opens that version's fact (its own steps and runs) when clicked. */
const version = (id: string, text: string, actions: Actions) => {
  const li = el("li", { "data-id": id, tabindex: "0" }, text)
  li.addEventListener("click", () => void actions.openFact(id))
  li.addEventListener("keydown", (e) => {
    if (e.key === "Enter") void actions.openFact(id)
  })
  return li
}

const runLine = (r: Run, t: number) =>
  el(
    "li",
    { "data-id": r.id, class: `run-${r.outcome}` },
    el("strong", {}, r.outcome),
    r.failed_step === null ? "" : ` at step ${r.failed_step}`,
    ` by ${r.ran_by} `,
    timeEl(r.created_at, t),
    r.task_id === null ? "" : ` (task ${short(r.task_id)})`,
    ...(r.note === null ? [] : [": ", el("q", {}, r.note)])
  )

/** The section for procedure `v`; `asOf` set: the slider is in the past, and the record is today's. */
export const procedureSection = (v: ProcedureView, actions: Actions, asOf: string | null) => {
  const p = v.procedure
  const t = now()
  // A revision's lesson is its first check (tools/procedureSave.ts): every version after the first has one.
  const checks = el(
    "ol",
    { id: "procedure-checks" },
    ...p.preconditions.map((c, i) =>
      i === 0 && p.version > 1
        ? el("li", { class: "lesson" }, el("span", { class: "tag" }, `lesson of v${p.version - 1}`), " ", c)
        : el("li", {}, c)
    )
  )
  const oldest = p.earlier[p.earlier.length - 1]
  const versions = el(
    "ol",
    { id: "procedure-versions" },
    ...(v.earlier_more === 0 || oldest === undefined ? [] : [
      el("li", { class: "more" }, `${plural(v.earlier_more, "earlier version")}: open v${oldest.version} for them`)
    ]),
    ...[...p.earlier].reverse().map((e) =>
      version(e.id, `v${e.version} ${short(e.id)}: ${countsLine(e.runs)}`, actions)
    ),
    el("li", { "aria-current": "true" }, `v${p.version} (this one): ${countsLine(p.runs)}`),
    ...(p.revised_by === null
      ? []
      : [version(p.revised_by, `v${p.version + 1} ${short(p.revised_by)}: revises this one`, actions)])
  )
  const runs = el("ul", { id: "procedure-runs" }, ...v.runs.map((r) => runLine(r, t)))
  if (v.runs.length === 0) runs.append(el("li", { class: "empty" }, "not run yet"))
  const more = el("button", { id: "procedure-more-runs", type: "button" })
  let cursor = v.next_cursor
  const showMore = (left: number) => {
    more.textContent = `${plural(left, "more run")}`
    more.toggleAttribute("hidden", cursor === null)
  }
  showMore(v.runs_more)
  more.addEventListener("click", () => {
    if (cursor === null) return
    more.disabled = true
    void api<ProcedureView>("procedure", { id: p.fact.id, cursor }).then((next) => {
      runs.append(...next.runs.map((r) => runLine(r, now())))
      cursor = next.next_cursor
      showMore(next.runs_more)
    }, (e: Error) => {
      more.textContent = e.message
    }).finally(() => {
      more.disabled = false
    })
  })
  return el(
    "section",
    { id: "procedure", "data-version": String(p.version) },
    el("h3", {}, `Procedure v${p.version}: ${countsLine(p.runs)}`),
    ...(p.preconditions.length === 0 ? [] : [el("h4", {}, "Check first (mandatory)"), checks]),
    el("h4", {}, "Steps"),
    el("ol", { id: "procedure-steps" }, ...p.steps.map((s) => el("li", {}, s))),
    el("h4", {}, "Versions"),
    versions,
    el("h4", {}, `Runs, newest first${asOf === null ? "" : " (as recorded now)"}`),
    runs,
    more
  )
}
