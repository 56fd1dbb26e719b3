/// <reference lib="dom" />
/** The side lists: threads (largest first), open conflicts, and the decisions and retractions. */
import { api, type Cluster, type Conflict, now, type TimelineEntry } from "./api.js"
import { cut, el } from "./dom.js"
import type { Actions, View } from "./view.js"

export interface ListBoxes {
  readonly threads: HTMLElement
  readonly conflicts: HTMLElement
  readonly timeline: HTMLElement
}

/** Reads and shows the lists; the threads list (the costliest read) only when `threadsToo`. */
export const loadLists = async (view: View, boxes: ListBoxes, actions: Actions, threadsToo: boolean) => {
  const asOf = { as_of: view.asOf }
  const [threads, conflicts, timeline] = await Promise.all([
    threadsToo ? api<{ clusters: Array<Cluster> }>("threads") : Promise.resolve(null),
    api<{ conflicts: Array<Conflict> }>("conflicts", asOf),
    api<{ entries: Array<TimelineEntry> }>("timeline", asOf)
  ])
  if (threads !== null) {
    view.clusters = threads.clusters
    view.threadsAt = now()
    boxes.threads.replaceChildren(
      ...threads.clusters.filter((c) => c.facts.length > 0).map((c) => {
        const root = c.facts[0]!
        const li = el(
          "li",
          { "data-id": root.id },
          el("q", {}, cut(root.content, 60)),
          ` ${c.size} fact${c.size === 1 ? "" : "s"}`
        )
        li.addEventListener("click", () => void actions.loadThread(root.id))
        return li
      })
    )
    const oldest = threads.clusters.flatMap((c) => c.facts).map((f) => Date.parse(f.created_at))
    if (oldest.length > 0) view.minTime = Math.min(...oldest) - 1000
  }
  boxes.conflicts.replaceChildren(...conflicts.conflicts.map((c) => {
    const li = el(
      "li",
      { "data-id": c.parent.id },
      `fork under `,
      el("q", {}, cut(c.parent.content, 50)),
      `: ${c.children_total} open`
    )
    for (const child of c.children) {
      li.append(el("div", { class: "child" }, `${child.written_by}: `, el("q", {}, cut(child.content, 60))))
    }
    li.addEventListener("click", () => void actions.loadThread(c.parent.id))
    return li
  }))
  if (conflicts.conflicts.length === 0) boxes.conflicts.append(el("li", { class: "empty" }, "none open"))
  view.retractions = new Map(
    timeline.entries.filter((e) => e.kind === "retraction").map((e) => [e.fact_id, { reason: e.reason, by: e.by }])
  )
  boxes.timeline.replaceChildren(...timeline.entries.map((e) => {
    const li = el(
      "li",
      { class: e.kind, "data-id": e.fact_id },
      `${e.created_at.slice(0, 16).replace("T", " ")} ${e.by} ${e.kind === "decision" ? "decided" : "retracted"} `,
      el("q", {}, cut(e.fact_content, 50)),
      e.kind === "decision" ? " lost to " : "",
      e.winner_content === null ? "" : el("q", {}, cut(e.winner_content, 50)),
      `: ${e.reason}`
    )
    li.addEventListener("click", () => void actions.openFact(e.fact_id))
    return li
  }))
  return view.clusters
}
