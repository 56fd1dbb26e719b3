/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * One thread drawn as SVG, top down, laid out by @dagrejs/dagre: each fact a box coloured by its
 * status with its writer, age and text wrapped to a few lines (the whole text in the tooltip and the
 * panel), BUILDS_ON as lines, decisions as dashed arcs drawn over the facts. A parent is marked as a
 * fork only where relay_detect_conflicts lists an open conflict under it, or where a decision
 * settled one (two of its children, both saved before the decision): a parent whose children merely
 * differ, or add details, is no conflict.
 */
import { graphlib, layout } from "@dagrejs/dagre"
import { ago } from "./ages.js"
import type { Fact, ThreadPage } from "./api.js"
import { svg } from "./dom.js"
import { fitLine, fonts, textWidth, wrap } from "./text.js"

export type ForkMark = "open" | "settled"

const statusColour: Record<Fact["status"], [string, string]> = {
  active: ["#e8f5e9", "#2e7d32"],
  superseded: ["#eeeeee", "#9e9e9e"],
  stale: ["#fff8e1", "#f9a825"],
  retracted: ["#ffebee", "#c62828"]
}

/** A node's size and text: at most `bodyLines` lines of text, a head line, a fork line when marked. */
const nodeWidth = 232
const pad = 10
const inner = nodeWidth - 2 * pad
const bodyLines = 3
const headBaseline = 17
const lineHeight = 15

/** The fork marks of a page: open where the open conflicts (of its thread) say, settled where a decision did. */
export const forkMarks = (page: ThreadPage, open: ReadonlySet<string>): Map<string, ForkMark> => {
  const marks = new Map<string, ForkMark>()
  const byId = new Map(page.facts.map((f) => [f.id, f]))
  for (const id of open) if (byId.has(id)) marks.set(id, "open")
  for (const d of page.decisions) {
    const w = byId.get(d.winner_id)
    const l = byId.get(d.loser_id)
    if (w === undefined || l === undefined || w.parent_id === null || w.parent_id !== l.parent_id) continue
    // A revision (a save that supersedes a fact) is stamped with its new fact: no conflict was settled.
    const settled = Date.parse(d.created_at) > Math.max(Date.parse(w.created_at), Date.parse(l.created_at))
    if (settled && !marks.has(w.parent_id)) marks.set(w.parent_id, "settled")
  }
  return marks
}

export interface DrawOptions {
  readonly selected: string | null
  readonly marks: ReadonlyMap<string, ForkMark>
  readonly now: number
  readonly onSelect: (id: string) => void
  /** A fact is pointed at or focused (its node), or no longer (null). */
  readonly onTip: (fact: Fact | null, node: Element | null, focused: boolean) => void
}

export interface Drawn {
  readonly root: SVGSVGElement
  /** What pans and zooms. */
  readonly content: SVGGElement
  readonly width: number
  readonly height: number
}

interface Box {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}
const overlaps = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h

interface NodeText {
  readonly left: string
  readonly right: string
  readonly body: Array<string>
  readonly height: number
}

const nodeText = (f: Fact, mark: ForkMark | undefined, now: number): NodeText => {
  const right = fitLine(
    `${f.status === "active" ? "" : `${f.status} · `}${ago(f.created_at, now)}`,
    inner - 60,
    fonts.head
  )
  const left = fitLine(f.written_by, inner - textWidth(right, fonts.head) - 8, fonts.head)
  const body = wrap(f.content, inner, fonts.body, bodyLines)
  const last = headBaseline + 17 + (Math.max(body.length, 1) - 1) * lineHeight
  return { left, right, body, height: (mark === undefined ? last : last + 17) + 10 }
}

const arrowMarker = () => {
  const defs = svg("defs")
  const marker = svg("marker", {
    id: "arrow",
    viewBox: "0 0 10 10",
    refX: 10,
    refY: 5,
    markerWidth: 6,
    markerHeight: 6,
    orient: "auto"
  })
  marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#c62828" }))
  defs.append(marker)
  return defs
}

export const drawThread = (graphBox: HTMLElement, page: ThreadPage, options: DrawOptions): Drawn => {
  const facts = page.facts
  const texts = new Map(facts.map((f) => [f.id, nodeText(f, options.marks.get(f.id), options.now)]))
  const g = new graphlib.Graph()
  g.setGraph({ rankdir: "TB", nodesep: 20, ranksep: 44, marginx: 8, marginy: 44 })
  g.setDefaultEdgeLabel(() => ({}))
  const ids = new Set(facts.map((f) => f.id))
  for (const f of facts) g.setNode(f.id, { width: nodeWidth, height: texts.get(f.id)!.height })
  for (const f of facts) if (f.parent_id !== null && ids.has(f.parent_id)) g.setEdge(f.parent_id, f.id)
  layout(g)
  const size = g.graph() as { width?: number; height?: number }
  const root = svg("svg", { class: "thread", role: "group", "aria-label": "Thread" }) as SVGSVGElement
  const content = svg("g", { class: "viewport" }) as SVGGElement
  root.append(arrowMarker(), content)
  for (const e of g.edges()) {
    const points = (g.edge(e) as { points: Array<{ x: number; y: number }> }).points
    content.append(svg("polyline", {
      class: "builds-on",
      points: points.map((p) => `${p.x},${p.y}`).join(" "),
      fill: "none",
      stroke: "#90a4ae",
      "stroke-width": 1.5
    }))
  }
  const at = (id: string) => g.node(id) as { x: number; y: number; height: number } | undefined
  const nodeBoxes: Array<Box> = []
  for (const f of facts) {
    const n = at(f.id)!
    const t = texts.get(f.id)!
    const mark = options.marks.get(f.id)
    const [fill, stroke] = statusColour[f.status]
    const selected = options.selected === f.id
    const x = n.x - nodeWidth / 2
    const y = n.y - t.height / 2
    nodeBoxes.push({ x, y, w: nodeWidth, h: t.height })
    const group = svg("g", {
      class: `node status-${f.status}${mark === undefined ? "" : ` fork fork-${mark}`}${selected ? " selected" : ""}`,
      "data-id": f.id,
      "data-status": f.status,
      ...(mark === undefined ? {} : { "data-fork": mark }),
      transform: `translate(${x},${y})`,
      tabindex: 0,
      role: "button",
      "aria-label": `${f.status} fact by ${f.written_by}, ${ago(f.created_at, options.now)}: ${f.content}`
    })
    group.append(svg("rect", {
      class: "box",
      width: nodeWidth,
      height: t.height,
      rx: 6,
      fill,
      stroke,
      "stroke-width": selected ? 3 : 1.5
    }))
    const head = svg("text", { x: pad, y: headBaseline, class: "node-head" })
    head.textContent = t.left
    const right = svg("text", { x: nodeWidth - pad, y: headBaseline, class: "node-age", "text-anchor": "end" })
    right.textContent = t.right
    group.append(head, right)
    for (const [i, line] of t.body.entries()) {
      const text = svg("text", { x: pad, y: headBaseline + 17 + i * lineHeight, class: "node-text" })
      text.textContent = line
      group.append(text)
    }
    if (mark !== undefined) {
      const y = t.height - 14
      group.append(svg("circle", { cx: pad + 4, cy: y - 4, r: 4, class: `fork-dot fork-${mark}` }))
      const label = svg("text", { x: pad + 13, y, class: `fork-label fork-${mark}` })
      label.textContent = mark === "open" ? "open conflict under this fact" : "conflict settled by a decision"
      group.append(label)
    }
    group.addEventListener("click", () => options.onSelect(f.id))
    group.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" && e.key !== " ") return
      e.preventDefault()
      options.onSelect(f.id)
    })
    group.addEventListener("pointerenter", () => options.onTip(f, group, false))
    group.addEventListener("pointerleave", () => options.onTip(null, null, false))
    group.addEventListener("focus", () => options.onTip(f, group, true))
    group.addEventListener("blur", () => options.onTip(null, null, true))
    content.append(group)
  }
  // Decisions over the facts, so an arc between neighbours is not hidden under them; a label that
  // would cover another label or a fact moves up into the gap above, or is left to the arc's title.
  const drawn = new Set<string>()
  const labels: Array<Box> = []
  for (const d of page.decisions) {
    const w = at(d.winner_id)
    const l = at(d.loser_id)
    const key = `${d.winner_id} ${d.loser_id}`
    if (w === undefined || l === undefined || drawn.has(key)) continue
    drawn.add(key)
    const wTop = w.y - w.height / 2
    const lTop = l.y - l.height / 2
    const top = Math.min(wTop, lTop)
    const cx = (w.x + l.x) / 2
    const cy = top - 36
    const line = svg("path", {
      class: "supersedes",
      "data-winner": d.winner_id,
      "data-loser": d.loser_id,
      d: `M${w.x},${wTop} Q${cx},${cy} ${l.x},${lTop}`,
      fill: "none",
      stroke: "#c62828",
      "stroke-dasharray": "6 4",
      "stroke-width": 2,
      "marker-end": "url(#arrow)"
    })
    const title = svg("title")
    title.textContent = `decided by ${d.resolved_by}: ${d.reason}`
    line.append(title)
    content.append(line)
    const text = fitLine(`decided: ${d.reason}`, Math.max(Math.abs(w.x - l.x), nodeWidth), fonts.label)
    const width = textWidth(text, fonts.label)
    for (const lift of [0, 14, 28]) {
      const baseline = cy + 12 - lift
      const box = { x: cx - width / 2, y: baseline - 11, w: width, h: 14 }
      if ([...labels, ...nodeBoxes].some((b) => overlaps(b, box))) continue
      labels.push(box)
      const label = svg("text", { class: "decision-label", x: cx, y: baseline, "text-anchor": "middle" })
      label.textContent = text
      content.append(label)
      break
    }
  }
  graphBox.replaceChildren(root)
  return { root, content, width: size.width ?? nodeWidth, height: size.height ?? 100 }
}

/** Marks fact `id` as the selected one, without drawing the thread again (focus stays where it is). */
export const markSelected = (root: Element, id: string | null) => {
  for (const g of root.querySelectorAll("g.node")) {
    const on = g.getAttribute("data-id") === id
    g.classList.toggle("selected", on)
    g.querySelector("rect.box")?.setAttribute("stroke-width", on ? "3" : "1.5")
  }
}
