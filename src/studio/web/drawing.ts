/// <reference lib="dom" />
/**
 * One thread drawn as SVG, top down, laid out by @dagrejs/dagre: facts coloured by status,
 * BUILDS_ON as lines, decisions as dashed arcs drawn over the facts.
 */
import { graphlib, layout } from "@dagrejs/dagre"
import type { Fact, ThreadPage } from "./api.js"
import { cut, short, svg } from "./dom.js"

const statusColour: Record<Fact["status"], [string, string]> = {
  active: ["#e8f5e9", "#2e7d32"],
  superseded: ["#eeeeee", "#9e9e9e"],
  stale: ["#fff8e1", "#f9a825"],
  retracted: ["#ffebee", "#c62828"]
}

export const drawThread = (
  graphBox: HTMLElement,
  page: ThreadPage | null,
  selected: string | null,
  onSelect: (id: string) => void
) => {
  graphBox.replaceChildren()
  if (page === null) return
  const facts = page.facts
  const g = new graphlib.Graph()
  g.setGraph({ rankdir: "TB", nodesep: 24, ranksep: 64, marginx: 16, marginy: 56 })
  g.setDefaultEdgeLabel(() => ({}))
  const ids = new Set(facts.map((f) => f.id))
  for (const f of facts) g.setNode(f.id, { width: 230, height: 58 })
  for (const f of facts) if (f.parent_id !== null && ids.has(f.parent_id)) g.setEdge(f.parent_id, f.id)
  layout(g)
  const norms = new Map<string, Set<string>>()
  for (const f of facts) {
    if (f.parent_id === null || f.status === "retracted") continue
    const set = norms.get(f.parent_id) ?? new Set<string>()
    set.add(f.content.trim().replace(/\s+/g, " ").toLowerCase())
    norms.set(f.parent_id, set)
  }
  const size = g.graph() as { width?: number; height?: number }
  const root = svg("svg", { width: size.width ?? 300, height: size.height ?? 200, role: "img" })
  root.append(svg("defs"))
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
  root.firstChild!.appendChild(marker)
  for (const e of g.edges()) {
    const points = (g.edge(e) as { points: Array<{ x: number; y: number }> }).points
    root.append(svg("polyline", {
      class: "builds-on",
      points: points.map((p) => `${p.x},${p.y}`).join(" "),
      fill: "none",
      stroke: "#90a4ae",
      "stroke-width": 1.5
    }))
  }
  const at = (id: string) => g.node(id) as { x: number; y: number } | undefined
  const drawn = new Set<string>()
  // Drawn over the facts, so an arc between neighbours is not hidden under them.
  const decisionLayer: Array<SVGElement> = []
  for (const d of page.decisions) {
    const w = at(d.winner_id)
    const l = at(d.loser_id)
    const key = `${d.winner_id} ${d.loser_id}`
    if (w === undefined || l === undefined || drawn.has(key)) continue
    drawn.add(key)
    // An arc above the two facts (they are usually siblings, side by side), pointing at the loser.
    const top = Math.min(w.y, l.y) - 29
    const cx = (w.x + l.x) / 2
    const cy = top - 36
    const line = svg("path", {
      class: "supersedes",
      "data-winner": d.winner_id,
      "data-loser": d.loser_id,
      d: `M${w.x},${w.y - 29} Q${cx},${cy} ${l.x},${l.y - 29}`,
      fill: "none",
      stroke: "#c62828",
      "stroke-dasharray": "6 4",
      "stroke-width": 2,
      "marker-end": "url(#arrow)"
    })
    const title = svg("title")
    title.textContent = `decided by ${d.resolved_by}: ${d.reason}`
    line.append(title)
    decisionLayer.push(line)
    const label = svg("text", { class: "decision-label", x: cx, y: cy + 12, "text-anchor": "middle" })
    label.textContent = `decided: ${cut(d.reason, 40)}`
    decisionLayer.push(label)
  }
  for (const f of facts) {
    const n = at(f.id)!
    const [fill, stroke] = statusColour[f.status]
    const fork = (norms.get(f.id)?.size ?? 0) > 1
    const group = svg("g", {
      class: `node status-${f.status}${fork ? " fork" : ""}${selected === f.id ? " selected" : ""}`,
      "data-id": f.id,
      "data-status": f.status,
      transform: `translate(${n.x - 115},${n.y - 29})`,
      tabindex: 0
    })
    group.append(
      svg("rect", { width: 230, height: 58, rx: 6, fill, stroke, "stroke-width": selected === f.id ? 3 : 1.5 })
    )
    const head = svg("text", { x: 8, y: 18, class: "node-head" })
    head.textContent = `${short(f.id)} · ${f.written_by}${f.status === "active" ? "" : ` · ${f.status}`}${
      fork ? " · fork" : ""
    }`
    const body = svg("text", { x: 8, y: 40, class: "node-text" })
    body.textContent = cut(f.content, 34)
    const full = svg("title")
    full.textContent = f.content
    group.append(head, body, full)
    group.addEventListener("click", () => onSelect(f.id))
    root.append(group)
  }
  root.append(...decisionLayer)
  graphBox.append(root)
}
