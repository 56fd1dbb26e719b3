/// <reference lib="dom" />
/**
 * Relay Studio's page: plain TypeScript and the DOM, bundled by esbuild (scripts/build-studio.mjs)
 * with @dagrejs/dagre for the top-down layout of a thread. This file lays out the page and wires
 * its parts: api.ts (what it reads), view.ts (what it shows), drawing.ts (the thread), panel.ts
 * (the fact panel), lists.ts (threads, conflicts, timeline) and live.ts (the event stream). The
 * page reads only the studio's own API and event stream.
 */
import { threadMermaid } from "../../domain/mermaid.js"
import { api, base, type Fact, now, type ThreadPage } from "./api.js"
import { el, setText } from "./dom.js"
import { drawThread } from "./drawing.js"
import { loadLists } from "./lists.js"
import { listen } from "./live.js"
import { factLine, showFact } from "./panel.js"
import { type Actions, makeView } from "./view.js"

const view = makeView()
const asOfParam = () => ({ as_of: view.asOf })

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

const draw = () => {
  drawThread(graphBox, view.thread, view.selected, (id) => void actions.selectFact(id))
  if (view.thread?.next_cursor == null) moreButton.setAttribute("hidden", "")
  else moreButton.removeAttribute("hidden")
}

const loadThread = async (factId: string, more = false) => {
  const page = await api<ThreadPage>("thread", {
    fact: factId,
    ...asOfParam(),
    cursor: more ? view.thread?.next_cursor : null
  })
  if (more && view.thread !== null) {
    view.thread = {
      ...page,
      facts: [...view.thread.facts, ...page.facts],
      decisions: [...view.thread.decisions, ...page.decisions]
    }
  } else {
    view.thread = page
  }
  view.threadOf = factId
  draw()
}

const selectFact = async (id: string) => {
  view.selected = id
  draw()
  await showFact(panel, view, actions, id)
}

/** Shows a fact's thread and selects it. */
const openFact = async (id: string) => {
  await loadThread(id)
  await selectFact(id)
}

const actions: Actions = { openFact, loadThread: (id) => loadThread(id), selectFact }

const refresh = async (threadsToo = true) => {
  const clusters = await loadLists(
    view,
    { threads: threadsBox, conflicts: conflictsBox, timeline: timelineBox },
    actions,
    threadsToo
  )
  const first = clusters[0]?.facts[0]?.id
  const target = view.threadOf ?? first
  if (target !== undefined) {
    await loadThread(target).catch(() => {
      // A fact saved after the chosen time is not in the thread then: show nothing for it.
      view.thread = null
      draw()
    })
  }
  if (view.selected !== null && view.thread?.facts.some((f) => f.id === view.selected)) {
    await selectFact(view.selected)
  }
  view.refreshes++
  document.body.dataset["refreshes"] = String(view.refreshes)
  document.body.dataset["state"] = "ready"
}

// ---- search, slider, buttons
search.addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return
  const q = search.value.trim()
  if (q === "") return resultsBox.replaceChildren()
  void api<{ hits: Array<{ fact: Fact }> }>("search", { q, ...asOfParam() }).then((r) => {
    resultsBox.replaceChildren(...r.hits.map((h) => factLine(h.fact, actions)))
    if (r.hits.length === 0) resultsBox.append(el("li", { class: "empty" }, "no match"))
  }, (e: Error) => resultsBox.replaceChildren(el("li", { class: "empty" }, e.message)))
})

slider.addEventListener("input", () => {
  const v = Number(slider.value)
  view.asOf = v >= 1000 ? null : new Date(view.minTime + (now() - view.minTime) * v / 1000).toISOString()
  setText(sliderLabel, view.asOf === null ? "now (live)" : view.asOf)
  void refresh()
})

/** Sets the time slider to an instant (tests and links use it: ?as_of=). */
const setAsOf = (iso: string | null) => {
  view.asOf = iso
  setText(sliderLabel, iso === null ? "now (live)" : iso)
  slider.value = iso === null
    ? "1000"
    : String(
      Math.max(0, Math.min(999, Math.floor((Date.parse(iso) - view.minTime) / (now() - view.minTime) * 1000)))
    )
}

copyButton.addEventListener("click", () => {
  if (view.thread === null) return
  const text = threadMermaid(view.thread.facts, view.thread.decisions, view.thread.next_cursor !== null)
  mermaidOut.textContent = text
  mermaidOut.removeAttribute("hidden")
  void navigator.clipboard?.writeText(text).catch(() => undefined)
})
moreButton.addEventListener("click", () => {
  if (view.threadOf !== null) void loadThread(view.threadOf, true)
})

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
  listen(view, liveBadge, refresh)
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
