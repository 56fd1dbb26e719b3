/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/** The side lists: threads (largest first), open conflicts, and the decisions and retractions. */
import { timeEl } from "./ages.js"
import { api, type Cluster, type Conflict, now, type TimelineEntry } from "./api.js"
import { cut, el } from "./dom.js"
import type { Actions, View } from "./view.js"

export interface ListBoxes {
  readonly threads: HTMLElement
  readonly conflicts: HTMLElement
  readonly timeline: HTMLElement
}

/** A list entry that does `action` on a click or Enter. */
const entry = (attrs: Record<string, string>, action: () => void, ...children: Array<Node | string>) => {
  const li = el("li", { ...attrs, tabindex: "0" }, ...children)
  li.addEventListener("click", action)
  li.addEventListener("keydown", (e) => {
    if (e.key === "Enter") action()
  })
  return li
}

/** Marks the open thread's entry in the threads list. */
export const markOpenThread = (box: HTMLElement, rootId: string | null) => {
  for (const li of box.querySelectorAll("li[data-id]")) {
    if (li.getAttribute("data-id") === rootId) li.setAttribute("aria-current", "true")
    else li.removeAttribute("aria-current")
  }
}

/**
 * Reads and shows the lists; the threads list only when `threadsToo`. False
 * when a newer read took over (nothing shown then).
 */
export const loadLists = async (view: View, boxes: ListBoxes, actions: Actions, threadsToo: boolean) => {
  const ticket = ++view.listsTicket
  const asOf = { as_of: view.asOf }
  const [threads, conflicts, timeline] = await Promise.all([
    threadsToo ? api<{ clusters: Array<Cluster> }>("threads") : Promise.resolve(null),
    api<{ conflicts: Array<Conflict> }>("conflicts", asOf),
    api<{ entries: Array<TimelineEntry> }>("timeline", asOf)
  ])
  if (ticket !== view.listsTicket) return false
  const t = now()
  if (threads !== null) {
    view.clusters = threads.clusters
    boxes.threads.replaceChildren(
      ...threads.clusters.filter((c) => c.facts.length > 0).map((c) => {
        const root = c.facts[0]!
        return entry(
          { "data-id": root.id },
          () => void actions.loadThread(root.id),
          el("q", {}, cut(root.content, 80)),
          el("span", { class: "count" }, ` ${c.size} fact${c.size === 1 ? "" : "s"}`)
        )
      })
    )
    if (threads.clusters.length === 0) boxes.threads.append(el("li", { class: "empty" }, "none yet"))
    const oldest = threads.clusters.flatMap((c) => c.facts).map((f) => Date.parse(f.created_at))
    if (oldest.length > 0) view.minTime = Math.min(...oldest) - 1000
  }
  boxes.conflicts.replaceChildren(...conflicts.conflicts.map((c) => {
    const li = entry(
      { "data-id": c.parent.id },
      () => void actions.openFact(c.parent.id),
      `fork under `,
      el("q", {}, cut(c.parent.content, 60)),
      `: ${c.children_total} open`
    )
    for (const child of c.children) {
      li.append(el("div", { class: "child" }, `${child.written_by}: `, el("q", {}, cut(child.content, 80))))
    }
    return li
  }))
  if (conflicts.conflicts.length === 0) boxes.conflicts.append(el("li", { class: "empty" }, "none open"))
  view.retractions = new Map(
    timeline.entries.filter((e) => e.kind === "retraction").map((e) => [e.fact_id, { reason: e.reason, by: e.by }])
  )
  boxes.timeline.replaceChildren(...timeline.entries.map((e) =>
    entry(
      { class: e.kind, "data-id": e.fact_id },
      () => void actions.openFact(e.fact_id),
      timeEl(e.created_at, t),
      ` ${e.by} ${e.kind === "decision" ? "decided" : "retracted"} `,
      el("q", {}, cut(e.fact_content, 60)),
      e.kind === "decision" ? " lost to " : "",
      e.winner_content === null ? "" : el("q", {}, cut(e.winner_content, 60)),
      `: ${e.reason}`
    )
  ))
  if (timeline.entries.length === 0) boxes.timeline.append(el("li", { class: "empty" }, "none yet"))
  return true
}
