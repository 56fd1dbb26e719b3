/// <reference lib="dom" />
/**
 * Relay's thread app (an MCP App): the studio's drawing of a thread (src/studio/web/drawing.ts,
 * with its zoom and tooltip) and a fact panel, inside the chat of a host that draws MCP Apps. It
 * draws the thread of what relay_get_context or relay_detect_conflicts answered (the host pushes the
 * call's input and result), read through relay_view_thread, the tool only the app sees; it has no
 * network but the host. It only reads. Every text of the memory goes in as text (dom.ts `el`,
 * textContent), never as markup.
 */
import { stamp, timeEl } from "../../studio/web/ages.js"
import type { Fact, ThreadPage } from "../../studio/web/api.js"
import { el, setText, short } from "../../studio/web/dom.js"
import { type Drawn, drawThread, type ForkMark, forkMarks, markSelected } from "../../studio/web/drawing.js"
import { makeTip } from "../../studio/web/tip.js"
import { makeZoom } from "../../studio/web/zoom.js"
import { connectHost, type ToolResult } from "./bridge.js"

interface ViewPage extends ThreadPage {
  open_forks: Array<string>
  read_at: string
}

const title = el("span", { id: "thread-title" })
const more = el("button", { id: "more", type: "button", hidden: "" }, "Draw more facts")
const fit = el("button", { id: "fit", type: "button", title: "Fit the thread" }, "Fit")
const graph = el("div", { id: "graph", tabindex: "0", "aria-label": "The thread: drag to pan, the wheel to zoom" })
const panel = el("section", { id: "panel", "aria-live": "polite" })
const status = el("p", { id: "status" }, "Waiting for the tool's answer…")
const tip = makeTip()
document.body.replaceChildren(el("div", { class: "bar" }, title, fit, more), status, graph, panel, tip.box)
const zoom = makeZoom(graph)

let page: ViewPage | null = null
let marks = new Map<string, ForkMark>()
let selected: string | null = null
let drawn: Drawn | null = null
let args: Record<string, unknown> = {}
let target: string | null = null
/** The server's time when the page was read, and the browser's monotonic time then. */
let clock = { at: 0, local: 0 }
const now = () => clock.at + (performance.now() - clock.local)

const byId = (id: string | null) => page?.facts.find((f) => f.id === id)

const say = (text: string) => {
  status.removeAttribute("hidden")
  setText(status, text)
}

const showFact = (f: Fact) => {
  const why = el("ul", { id: "why" })
  for (const d of page?.decisions ?? []) {
    if (d.loser_id === f.id) {
      const w = byId(d.winner_id)
      why.append(el(
        "li",
        {},
        `superseded by ${short(d.winner_id)}`,
        ...(w === undefined ? [] : [" (", el("q", {}, w.content), ")"]),
        `, decided by ${d.resolved_by}: ${d.reason}`
      ))
    } else if (d.winner_id === f.id) {
      why.append(el("li", {}, `won over ${short(d.loser_id)}, decided by ${d.resolved_by}: ${d.reason}`))
    }
  }
  if (f.status === "stale") why.append(el("li", {}, "stale: something it builds on was superseded or retracted"))
  if (f.status === "retracted") why.append(el("li", {}, "retracted"))
  const mark = marks.get(f.id)
  if (mark !== undefined) {
    why.append(
      el("li", {}, mark === "open" ? "open conflict under this fact" : "a decision settled a conflict under it")
    )
  }
  const parent = byId(f.parent_id)
  panel.replaceChildren(
    el("p", { id: "fact-text", class: "fact-text" }, f.content),
    el(
      "dl",
      {},
      el("dt", {}, "status"),
      el("dd", { id: "fact-status", class: `status-${f.status}` }, f.status),
      el("dt", {}, "writer"),
      el("dd", { id: "fact-writer" }, f.written_by),
      el("dt", {}, "saved"),
      el("dd", {}, timeEl(f.created_at, now()), ` · ${stamp(f.created_at)}`),
      el("dt", {}, "builds on"),
      el(
        "dd",
        { id: "fact-parent" },
        ...(parent === undefined
          ? [f.parent_id === null ? "nothing (the root)" : short(f.parent_id)]
          : [`${short(parent.id)} `, el("q", {}, parent.content)])
      ),
      el("dt", {}, "id"),
      el("dd", {}, f.id)
    ),
    why
  )
}

const select = (id: string) => {
  selected = id
  if (drawn !== null) markSelected(drawn.root, id)
  const f = byId(id)
  if (f !== undefined) showFact(f)
}

const render = (keep: boolean) => {
  if (page === null) return
  tip.hide()
  status.setAttribute("hidden", "")
  marks = forkMarks(page, new Set(page.open_forks))
  drawn = drawThread(graph, page, {
    selected,
    marks,
    now: now(),
    onSelect: select,
    onTip: (fact, node, focused) => {
      if (fact === null || node === null) return tip.hide()
      if (focused) zoom.reveal(node)
      tip.show(fact, node, now())
    }
  })
  zoom.attach(drawn, keep)
  const root = byId(page.root_id) ?? page.facts[0]
  setText(title, `${root?.content ?? ""} · ${page.facts.length}${page.next_cursor === null ? "" : "+"} facts`)
  more.toggleAttribute("hidden", page.next_cursor === null)
  const shown = byId(selected)
  if (shown === undefined) panel.replaceChildren(el("p", { class: "hint" }, "Click a fact to read it whole."))
  else showFact(shown)
  document.body.dataset["state"] = "drawn"
}

const failed = (r: ToolResult) =>
  r.isError === true ? r.content?.map((c) => c.text ?? "").join(" ") || "the read failed" : null

const read = async (cursor: string | null) => {
  if (target === null) return
  // As of the instant the model asked about, when it gave one.
  const asOf = typeof args["as_of"] === "string" ? { as_of: args["as_of"] } : {}
  const r = await host.callTool(
    "relay_view_thread",
    cursor === null ? { fact_id: target, ...asOf } : { fact_id: target, cursor, ...asOf }
  )
  const error = failed(r)
  if (error !== null) return say(error)
  const next = r.structuredContent as unknown as ViewPage
  clock = { at: Date.parse(next.read_at), local: performance.now() }
  page = cursor === null || page === null ? next : {
    ...next,
    facts: [...page.facts, ...next.facts],
    decisions: [...page.decisions, ...next.decisions],
    open_forks: [...page.open_forks, ...next.open_forks]
  }
  render(cursor !== null)
}

/**
 * A fact's id in the model's tool result: an object's `id` in the full JSON, the line's first word
 * in the compact form (mcp/compactJson.ts: its short id, which the app's reads take as a prefix).
 */
const idOf = (fact: unknown): string | null =>
  typeof fact === "string"
    ? fact.split(" ")[0] ?? null
    : typeof (fact as { id?: unknown } | null)?.id === "string"
    ? (fact as { id: string }).id
    : null

/** Which thread the tool's answer is about: the fact asked for, or the first conflict's parent. */
const threadOf = (r: ToolResult): { fact: string | null; select: string | null } | string => {
  const error = failed(r)
  if (error !== null) return error
  const out = r.structuredContent ?? {}
  const asked = typeof args["fact_id"] === "string" ? args["fact_id"] : null
  if (Array.isArray(out["chain"])) {
    const fact = asked ?? idOf(out["chain"][out["chain"].length - 1])
    return { fact, select: fact }
  }
  if (Array.isArray(out["conflicts"])) {
    const parent = idOf((out["conflicts"][0] as { parent?: unknown } | undefined)?.parent)
    const fact = typeof args["thread"] === "string" ? args["thread"] : parent
    return fact === null ? "No open conflicts." : { fact, select: parent }
  }
  return "Nothing to draw."
}

const host = connectHost({ name: "relay-thread", version: "1" }, {
  toolInput: (a) => {
    args = a
  },
  toolCancelled: () => say("The call was cancelled: nothing to draw."),
  toolResult: (r) => {
    const which = threadOf(r)
    if (typeof which === "string") return say(which)
    target = which.fact
    selected = null
    void read(null).then(() => {
      // The fact asked for, by whole id or by the short id the model passed.
      const hit = page?.facts.find((f) => which.select !== null && f.id.startsWith(which.select))
      if (hit !== undefined) select(hit.id)
    }, (e: Error) => say(e.message))
  }
})
host.initialized.catch((e: Error) => say(`The host did not start the app: ${e.message}`))

more.addEventListener("click", () => void read(page?.next_cursor ?? null).catch((e: Error) => say(e.message)))
fit.addEventListener("click", () => zoom.fit())
