/// <reference lib="dom" />
/**
 * Relay Studio's page: plain TypeScript and the DOM, bundled by esbuild (scripts/build-studio.mjs)
 * with @dagrejs/dagre for the top-down layout of a thread. Every text from the memory is put on the
 * page with textContent or as an SVG text node, never as markup, so a fact that holds `<script>` or
 * `<img onerror>` shows as those characters. The page reads only the studio's own API and event stream.
 */
import { graphlib, layout } from "@dagrejs/dagre"
import { threadMermaid } from "../../domain/mermaid.js"

interface Fact {
  id: string
  content: string
  written_by: string
  session_id: string
  created_at: string
  parent_id: string | null
  status: "active" | "superseded" | "stale" | "retracted"
}
interface ThreadDecision {
  winner_id: string
  loser_id: string
  reason: string
  resolved_by: string
  created_at: string
}
interface ThreadPage {
  root_id: string
  facts: Array<Fact>
  decisions: Array<ThreadDecision>
  next_cursor: string | null
}

const base = "/studio"

/**
 * Now, by the host's Clock: the page is stamped with it when served (studioServer.ts), and time
 * since then is the browser's monotonic timer, so a host on a TestClock sets the page's time too.
 */
const servedAt = Number(document.body.dataset["now"])
const loadedAt = performance.now()
const now = () => servedAt + (performance.now() - loadedAt)
const svgNs = "http://www.w3.org/2000/svg"

const state = {
  asOf: null as string | null,
  threadOf: null as string | null,
  thread: null as ThreadPage | null,
  selected: null as string | null,
  minTime: now() - 24 * 3600_000,
  refreshes: 0,
  clusters: [] as Array<Cluster>,
  threadsAt: 0
}

const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v)
  for (const c of children) e.append(typeof c === "string" ? document.createTextNode(c) : c)
  return e
}
const svg = (tag: string, attrs: Record<string, string | number> = {}) => {
  const e = document.createElementNS(svgNs, tag)
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v))
  return e
}
const short = (id: string) => id.slice(0, 8)
const cut = (s: string, n: number) => {
  const chars = [...s.replace(/\s+/g, " ").trim()]
  return chars.length > n ? `${chars.slice(0, n - 1).join("")}…` : chars.join("")
}

const api = async <A>(route: string, params: Record<string, string | null | undefined> = {}): Promise<A> => {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== "") q.set(k, v)
  const r = await fetch(`${base}/api/${route}?${q.toString()}`, { credentials: "same-origin" })
  const body = (await r.json()) as A & { error?: { message: string }; team?: boolean }
  if (!r.ok) throw Object.assign(new Error(body.error?.message ?? "failed"), { status: r.status, body })
  return body
}
const asOfParam = () => ({ as_of: state.asOf })

// ---- layout of the page
const header = el("header", {}, el("h1", {}, "Relay Studio"))
const search = el("input", { id: "search", type: "search", placeholder: "Search the memory (Enter)" })
const slider = el("input", { id: "slider", type: "range", min: "0", max: "1000", value: "1000" })
const sliderLabel = el("span", { id: "as-of" }, "now (live)")
const liveBadge = el("span", { id: "live", class: "live" }, "connecting…")
header.append(search, el("label", {}, "as of ", slider, sliderLabel), liveBadge)

const threadsBox = el("ul", { id: "threads" })
const resultsBox = el("ul", { id: "results" })
const conflictsBox = el("ul", { id: "conflicts" })
const timelineBox = el("ul", { id: "timeline" })
const sidebar = el(
  "nav",
  {},
  el("h2", {}, "Search results"),
  resultsBox,
  el("h2", {}, "Threads"),
  threadsBox,
  el("h2", {}, "Open conflicts"),
  conflictsBox,
  el("h2", {}, "Decisions and retractions"),
  timelineBox
)
const copyButton = el("button", { id: "copy-mermaid", type: "button" }, "Copy as Mermaid")
const moreButton = el("button", { id: "more", type: "button", hidden: "" }, "Draw more facts")
const mermaidOut = el("pre", { id: "mermaid", hidden: "" })
const graphBox = el("div", { id: "graph" })
const center = el("main", {}, el("div", { class: "toolbar" }, copyButton, moreButton), graphBox, mermaidOut)
const panel = el("aside", { id: "panel" }, el("p", { class: "hint" }, "Click a fact to see its chain and impact."))

const setText = (node: Element, text: string) => {
  node.textContent = text
}

// ---- the graph of one thread
const statusColour: Record<Fact["status"], [string, string]> = {
  active: ["#e8f5e9", "#2e7d32"],
  superseded: ["#eeeeee", "#9e9e9e"],
  stale: ["#fff8e1", "#f9a825"],
  retracted: ["#ffebee", "#c62828"]
}

const drawThread = () => {
  graphBox.replaceChildren()
  const page = state.thread
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
      class: `node status-${f.status}${fork ? " fork" : ""}${state.selected === f.id ? " selected" : ""}`,
      "data-id": f.id,
      "data-status": f.status,
      transform: `translate(${n.x - 115},${n.y - 29})`,
      tabindex: 0
    })
    group.append(
      svg("rect", { width: 230, height: 58, rx: 6, fill, stroke, "stroke-width": state.selected === f.id ? 3 : 1.5 })
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
    group.addEventListener("click", () => void selectFact(f.id))
    root.append(group)
  }
  root.append(...decisionLayer)
  graphBox.append(root)
  if (page.next_cursor === null) moreButton.setAttribute("hidden", "")
  else moreButton.removeAttribute("hidden")
}

const loadThread = async (factId: string, more = false) => {
  const page = await api<ThreadPage>("thread", {
    fact: factId,
    ...asOfParam(),
    cursor: more ? state.thread?.next_cursor : null
  })
  if (more && state.thread !== null) {
    state.thread = {
      ...page,
      facts: [...state.thread.facts, ...page.facts],
      decisions: [...state.thread.decisions, ...page.decisions]
    }
  } else {
    state.thread = page
  }
  state.threadOf = factId
  drawThread()
}

// ---- the fact panel
interface ContextOut {
  chain: Array<Fact>
  superseded_by: Array<
    { fact_id: string; winner_id: string; winner_content: string; reason: string; resolved_by: string }
  >
}
interface ImpactOut {
  dependents: Array<{ fact: Fact; distance: number }>
  next_cursor: string | null
}

const factLine = (f: Fact, extra = "") => {
  const li = el(
    "li",
    { "data-id": f.id, class: `status-${f.status}` },
    `${short(f.id)} ${f.written_by}${f.status === "active" ? "" : ` [${f.status}]`}${extra}: `,
    el("q", {}, f.content)
  )
  li.addEventListener("click", () => void openFact(f.id))
  return li
}

let retractions = new Map<string, { reason: string; by: string }>()

const selectFact = async (id: string) => {
  state.selected = id
  drawThread()
  const { context, impact } = await api<{ context: ContextOut; impact: ImpactOut }>("fact", { id, ...asOfParam() })
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
  const retraction = retractions.get(id)
  if (fact.status === "retracted") {
    why.append(
      el("li", {}, retraction === undefined ? "retracted" : `retracted by ${retraction.by}: ${retraction.reason}`)
    )
  }
  if (fact.status === "stale") why.append(el("li", {}, "stale: something it builds on was superseded or retracted"))
  const chain = el("ol", { id: "chain" }, ...context.chain.map((f) => factLine(f)))
  const impacted = el(
    "ul",
    { id: "impact" },
    ...impact.dependents.map((d) => factLine(d.fact, ` (distance ${d.distance})`))
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

/** Shows a fact's thread and selects it. */
const openFact = async (id: string) => {
  await loadThread(id)
  await selectFact(id)
}

// ---- lists
interface Cluster {
  id: number
  size: number
  facts: Array<Fact>
}
interface Conflict {
  parent: Fact
  children: Array<Fact>
  children_total: number
}
interface TimelineEntry {
  kind: "decision" | "retraction"
  created_at: string
  by: string
  reason: string
  winner_id: string | null
  winner_content: string | null
  fact_id: string
  fact_content: string
}

const loadLists = async (threadsToo: boolean) => {
  const [threads, conflicts, timeline] = await Promise.all([
    threadsToo ? api<{ clusters: Array<Cluster> }>("threads") : Promise.resolve(null),
    api<{ conflicts: Array<Conflict> }>("conflicts", asOfParam()),
    api<{ entries: Array<TimelineEntry> }>("timeline", asOfParam())
  ])
  if (threads !== null) {
    state.clusters = threads.clusters
    state.threadsAt = now()
    threadsBox.replaceChildren(
      ...threads.clusters.filter((c) => c.facts.length > 0).map((c) => {
        const root = c.facts[0]!
        const li = el(
          "li",
          { "data-id": root.id },
          el("q", {}, cut(root.content, 60)),
          ` ${c.size} fact${c.size === 1 ? "" : "s"}`
        )
        li.addEventListener("click", () => void loadThread(root.id))
        return li
      })
    )
    const oldest = threads.clusters.flatMap((c) => c.facts).map((f) => Date.parse(f.created_at))
    if (oldest.length > 0) state.minTime = Math.min(...oldest) - 1000
  }
  conflictsBox.replaceChildren(...conflicts.conflicts.map((c) => {
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
    li.addEventListener("click", () => void loadThread(c.parent.id))
    return li
  }))
  if (conflicts.conflicts.length === 0) conflictsBox.append(el("li", { class: "empty" }, "none open"))
  retractions = new Map(
    timeline.entries.filter((e) => e.kind === "retraction").map((e) => [e.fact_id, { reason: e.reason, by: e.by }])
  )
  timelineBox.replaceChildren(...timeline.entries.map((e) => {
    const li = el(
      "li",
      { class: e.kind, "data-id": e.fact_id },
      `${e.created_at.slice(0, 16).replace("T", " ")} ${e.by} ${e.kind === "decision" ? "decided" : "retracted"} `,
      el("q", {}, cut(e.fact_content, 50)),
      e.kind === "decision" ? " lost to " : "",
      e.winner_content === null ? "" : el("q", {}, cut(e.winner_content, 50)),
      `: ${e.reason}`
    )
    li.addEventListener("click", () => void openFact(e.fact_id))
    return li
  }))
  return state.clusters
}

const refresh = async (threadsToo = true) => {
  const clusters = await loadLists(threadsToo)
  const first = clusters[0]?.facts[0]?.id
  const target = state.threadOf ?? first
  if (target !== undefined) {
    await loadThread(target).catch(() => {
      // A fact saved after the chosen time is not in the thread then: show nothing for it.
      state.thread = null
      drawThread()
    })
  }
  if (state.selected !== null && state.thread?.facts.some((f) => f.id === state.selected)) {
    await selectFact(state.selected)
  }
  state.refreshes++
  document.body.dataset["refreshes"] = String(state.refreshes)
  document.body.dataset["state"] = "ready"
}

// ---- search, slider, live
search.addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return
  const q = search.value.trim()
  if (q === "") return resultsBox.replaceChildren()
  void api<{ hits: Array<{ fact: Fact }> }>("search", { q, ...asOfParam() }).then((r) => {
    resultsBox.replaceChildren(...r.hits.map((h) => factLine(h.fact)))
    if (r.hits.length === 0) resultsBox.append(el("li", { class: "empty" }, "no match"))
  }, (e: Error) => resultsBox.replaceChildren(el("li", { class: "empty" }, e.message)))
})

slider.addEventListener("input", () => {
  const v = Number(slider.value)
  state.asOf = v >= 1000 ? null : new Date(state.minTime + (now() - state.minTime) * v / 1000).toISOString()
  setText(sliderLabel, state.asOf === null ? "now (live)" : state.asOf)
  void refresh()
})

/** Sets the time slider to an instant (tests and links use it: ?as_of=). */
const setAsOf = (iso: string | null) => {
  state.asOf = iso
  setText(sliderLabel, iso === null ? "now (live)" : iso)
  slider.value = iso === null
    ? "1000"
    : String(
      Math.max(0, Math.min(999, Math.floor((Date.parse(iso) - state.minTime) / (now() - state.minTime) * 1000)))
    )
}

copyButton.addEventListener("click", () => {
  if (state.thread === null) return
  const text = threadMermaid(state.thread.facts, state.thread.decisions, state.thread.next_cursor !== null)
  mermaidOut.textContent = text
  mermaidOut.removeAttribute("hidden")
  void navigator.clipboard?.writeText(text).catch(() => undefined)
})
moreButton.addEventListener("click", () => {
  if (state.threadOf !== null) void loadThread(state.threadOf, true)
})

let pending: number | undefined
const live = () => {
  const events = new EventSource(`${base}/events`)
  events.addEventListener("open", () => setText(liveBadge, "live"))
  events.addEventListener("error", () => setText(liveBadge, "reconnecting…"))
  events.addEventListener("record", () => {
    if (state.asOf !== null) return
    window.clearTimeout(pending)
    // The threads list is a page read (issue 42): read again on every update, with the rest.
    pending = window.setTimeout(() => void refresh(), 150)
  })
}

const signIn = (team: boolean, failed: boolean) => {
  const box = el("div", { class: "signin" }, el("h1", {}, "Relay Studio"))
  if (!team) {
    box.append(el("p", {}, "Open the one-time link that npm run studio printed (each link signs in one browser once)."))
  } else {
    const form = el(
      "form",
      { method: "post", action: `${base}/login` },
      el("label", {}, "Token ", el("input", { type: "password", name: "token", autocomplete: "off" })),
      el("button", { type: "submit" }, "Sign in")
    )
    box.append(el("p", {}, "Sign in with your Relay token: you will see that token's workspace, read-only."), form)
    if (failed) box.append(el("p", { class: "error" }, "That token was not accepted."))
  }
  document.getElementById("app")!.replaceChildren(box)
}

const start = async () => {
  try {
    await api("me")
  } catch (e) {
    const body = (e as { body?: { team?: boolean } }).body
    return signIn(body?.team === true, new URLSearchParams(location.search).has("signin"))
  }
  document.getElementById("app")!.replaceChildren(header, el("div", { class: "columns" }, sidebar, center, panel))
  const given = new URLSearchParams(location.search).get("as_of")
  if (given !== null) setAsOf(given)
  await refresh()
  live()
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
