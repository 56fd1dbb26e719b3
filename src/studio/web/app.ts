/// <reference lib="dom" />
/**
 * Relay Studio's page: plain TypeScript and the DOM, bundled by esbuild (scripts/build-studio.mjs)
 * with @dagrejs/dagre for the top-down layout of a thread. This file wires the page's parts:
 * layout.ts (its elements), api.ts (what it reads), view.ts (what it shows), drawing.ts (the
 * thread), zoom.ts (its zoom and pan), tip.ts (a node's tooltip), empty.ts (no thread to draw),
 * panel.ts (the fact panel), lists.ts (threads, conflicts, timeline), live.ts (the event stream)
 * and signIn.ts. The page reads only the studio's own API and
 * event stream. Below 1100 px wide the lists and the fact panel fold away into drawers, so the
 * thread keeps the width.
 */
import { threadMermaid } from "../../domain/mermaid.js"
import { stamp } from "./ages.js"
import { api, type Fact, now, type ThreadPage } from "./api.js"
import { el, setText } from "./dom.js"
import { type Drawn, drawThread, forkMarks, markSelected } from "./drawing.js"
import { emptyState } from "./empty.js"
import { makePage } from "./layout.js"
import { loadLists, markOpenThread } from "./lists.js"
import { listen } from "./live.js"
import { factLine, panelHint, showFact } from "./panel.js"
import { signIn } from "./signIn.js"
import { makeTip } from "./tip.js"
import { type Actions, makeView } from "./view.js"
import { makeZoom } from "./zoom.js"

const view = makeView()
const asOfParam = () => ({ as_of: view.asOf })

const ui = makePage()
const toggle = (name: string, on?: boolean) => document.body.classList.toggle(name, on)
panelHint(ui.panelBody)

const zoom = makeZoom(ui.graphBox)
const tip = makeTip()
let drawn: Drawn | null = null

// ---- the thread
const showMermaid = () => {
  if (view.thread === null) return ui.mermaidBox.setAttribute("hidden", "")
  ui.mermaidOut.textContent = threadMermaid(
    view.thread.facts,
    view.thread.decisions,
    view.thread.next_cursor !== null,
    view.marks
  )
}

/** Draws view.thread; keeps the person's zoom and pan when `keep` (the same thread, redrawn). */
const render = (keep: boolean) => {
  tip.hide()
  const page = view.thread
  markOpenThread(ui.threadsBox, page?.root_id ?? null)
  for (const b of [ui.fitButton, ui.zoomOut, ui.zoomIn, ui.copyButton]) {
    b.toggleAttribute("hidden", page === null)
  }
  if (page === null) {
    drawn = null
    ui.graphBox.replaceChildren(emptyState(view))
    zoom.attach(null, false)
    setText(ui.threadTitle, "")
    ui.moreButton.setAttribute("hidden", "")
    ui.mermaidBox.setAttribute("hidden", "")
    return
  }
  // A live redraw replaces the nodes: the fact that had keyboard focus keeps it.
  const focused = ui.graphBox.contains(document.activeElement)
    ? document.activeElement?.getAttribute("data-id")
    : null
  drawn = drawThread(ui.graphBox, page, {
    selected: view.selected,
    marks: view.marks,
    now: now(),
    onSelect: (id) => void selectFact(id),
    onTip: (fact, node, focused) => {
      if (fact === null || node === null) return tip.hide()
      if (focused) zoom.reveal(node)
      tip.show(fact, node, now())
    }
  })
  zoom.attach(drawn, keep)
  if (focused != null) {
    drawn.root.querySelector<SVGGElement>(`g.node[data-id="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true })
  }
  const root = page.facts.find((f) => f.id === page.root_id) ?? page.facts[0]
  setText(
    ui.threadTitle,
    `${root?.content ?? ""} · ${page.facts.length}${page.next_cursor === null ? "" : "+"} facts`
  )
  ui.threadTitle.setAttribute("title", root?.content ?? "")
  if (page.next_cursor === null) ui.moreButton.setAttribute("hidden", "")
  else ui.moreButton.removeAttribute("hidden")
  if (!ui.mermaidBox.hasAttribute("hidden")) showMermaid()
}

/** The parents under which relay_detect_conflicts lists an open conflict, in the thread of `factId`. */
const openForks = async (factId: string, asOf: string | null) => {
  const open = new Set<string>()
  let cursor: string | null = null
  for (let page = 0; page < 4; page++) {
    const r: { conflicts: Array<{ parent: Fact }>; next_cursor: string | null } = await api("conflicts", {
      thread: factId,
      as_of: asOf,
      cursor
    })
    for (const c of r.conflicts) open.add(c.parent.id)
    if (r.next_cursor === null) break
    cursor = r.next_cursor
  }
  return open
}

/** Shows the thread of `factId` with `select` selected (when it is in it), as of the slider's time. */
const openThread = async (factId: string, select: string | null, keep: boolean) => {
  const ticket = ++view.ticket
  const asOf = view.asOf
  const read = await Promise.all([api<ThreadPage>("thread", { fact: factId, as_of: asOf }), openForks(factId, asOf)])
    .catch(() => null)
  if (ticket !== view.ticket) return
  const same = read !== null && view.thread?.root_id === read[0].root_id
  view.threadOf = factId
  view.thread = read?.[0] ?? null
  view.openForks = read?.[1] ?? new Set()
  view.marks = read === null ? new Map() : forkMarks(read[0], view.openForks)
  view.selected = select
  render(keep && same)
  if (select === null) {
    view.panelTicket++
    panelHint(ui.panelBody)
  } else {
    await showFact(ui.panelBody, view, actions, select)
  }
}

const drawMore = async () => {
  const page = view.thread
  if (page === null || page.next_cursor === null || view.threadOf === null) return
  const ticket = ++view.ticket
  const next = await api<ThreadPage>("thread", { fact: view.threadOf, ...asOfParam(), cursor: page.next_cursor })
  if (ticket !== view.ticket) return
  view.thread = {
    ...next,
    facts: [...page.facts, ...next.facts],
    decisions: [...page.decisions, ...next.decisions]
  }
  view.marks = forkMarks(view.thread, view.openForks)
  render(true)
}

const selectFact = async (id: string) => {
  view.selected = id
  if (drawn !== null) markSelected(drawn.root, id)
  toggle("panel-open", true)
  await showFact(ui.panelBody, view, actions, id)
}

/** Shows a fact: selected in its thread (opened when another). */
const openFact = async (id: string) => {
  toggle("lists-open", false)
  if (view.thread?.facts.some((f) => f.id === id)) {
    await selectFact(id)
    const node = drawn?.root.querySelector(`g.node[data-id="${CSS.escape(id)}"]`)
    if (node) zoom.reveal(node)
    return
  }
  await openThread(id, id, false)
  toggle("panel-open", true)
}

const actions: Actions = {
  openFact,
  loadThread: (id) => {
    toggle("lists-open", false)
    toggle("panel-open", false)
    return openThread(id, null, false)
  },
  selectFact
}

const refresh = async (threadsToo = true) => {
  const lists = await loadLists(
    view,
    { threads: ui.threadsBox, conflicts: ui.conflictsBox, timeline: ui.timelineBox },
    actions,
    threadsToo
  ).catch(() => false)
  if (!lists) return
  const target = view.threadOf ?? view.clusters[0]?.facts[0]?.id
  if (target === undefined) {
    view.thread = null
    render(false)
  } else {
    await openThread(target, view.selected, true)
  }
  view.refreshes++
  document.body.dataset["refreshes"] = String(view.refreshes)
  document.body.dataset["state"] = "ready"
}

// ---- ui.search, ui.slider, buttons
ui.search.addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return
  const q = ui.search.value.trim()
  if (q === "") return ui.resultsBox.replaceChildren()
  toggle("lists-open", true)
  void api<{ hits: Array<{ fact: Fact }> }>("search", { q, ...asOfParam() }).then((r) => {
    ui.resultsBox.replaceChildren(...r.hits.map((h) => factLine(h.fact, actions)))
    if (r.hits.length === 0) ui.resultsBox.append(el("li", { class: "empty" }, "no match"))
  }, (e: Error) => ui.resultsBox.replaceChildren(el("li", { class: "empty" }, e.message)))
})

const showAsOf = () => {
  setText(ui.sliderLabel, view.asOf === null ? "now (live)" : stamp(view.asOf))
  ui.sliderLabel.setAttribute("title", view.asOf ?? "")
}

ui.slider.addEventListener("input", () => {
  const v = Number(ui.slider.value)
  view.asOf = v >= 1000 ? null : new Date(view.minTime + (now() - view.minTime) * v / 1000).toISOString()
  showAsOf()
  void refresh()
})

/** Sets the time ui.slider to an instant (tests and links use it: ?as_of=). */
const setAsOf = (iso: string | null) => {
  view.asOf = iso
  showAsOf()
  ui.slider.value = iso === null
    ? "1000"
    : String(
      Math.max(0, Math.min(999, Math.floor((Date.parse(iso) - view.minTime) / (now() - view.minTime) * 1000)))
    )
}

ui.copyButton.addEventListener("click", () => {
  if (view.thread === null) return
  showMermaid()
  ui.mermaidBox.removeAttribute("hidden")
  void navigator.clipboard?.writeText(ui.mermaidOut.textContent ?? "").catch(() => undefined)
})
ui.closeMermaid.addEventListener("click", () => ui.mermaidBox.setAttribute("hidden", ""))
ui.moreButton.addEventListener("click", () => void drawMore())
ui.fitButton.addEventListener("click", () => zoom.fit())
ui.zoomIn.addEventListener("click", () => zoom.zoomBy(1.25))
ui.zoomOut.addEventListener("click", () => zoom.zoomBy(1 / 1.25))
ui.showLists.addEventListener("click", () => toggle("lists-open"))
ui.showPanel.addEventListener("click", () => toggle("panel-open"))
ui.closeLists.addEventListener("click", () => toggle("lists-open", false))
ui.closePanel.addEventListener("click", () => toggle("panel-open", false))
document.addEventListener("keydown", (e) => {
  if (e.key !== "Escape") return
  tip.hide()
  toggle("lists-open", false)
  toggle("panel-open", false)
})

const start = async () => {
  try {
    const me = await api<{ where?: string | null }>("me")
    view.where = me.where ?? null
  } catch (e) {
    const { body, status } = e as { status?: number; body?: { team?: boolean } }
    // 503: the session is kept, but its token could not be checked just now.
    return signIn(
      body?.team === true,
      status === 503 ? "unavailable" : new URLSearchParams(location.search).get("signin")
    )
  }
  document.getElementById("app")!.replaceChildren(
    ui.header,
    el("div", { class: "columns" }, ui.sidebar, ui.center, ui.panel),
    tip.box
  )
  const given = new URLSearchParams(location.search).get("as_of")
  if (given !== null) setAsOf(given)
  await refresh()
  listen(view, ui.liveBadge, refresh)
}

Object.assign(window, {
  relayStudio: {
    setAsOf: (iso: string | null) => {
      setAsOf(iso)
      return refresh()
    },
    openFact
  }
})
void start()
