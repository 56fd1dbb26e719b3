/// <reference lib="dom" />
/**
 * The page's elements: a header (search, time slider, live badge, the drawer buttons of narrow
 * windows), the lists, the thread with its toolbar and Mermaid box, and the fact panel. Made once by
 * app.ts, which gives them their behaviour.
 */
import { el } from "./dom.js"

const button = (id: string, text: string, attrs: Record<string, string> = {}) =>
  el("button", { id, type: "button", ...attrs }, text)

export const makePage = () => {
  const showLists = button("show-lists", "Threads", { "aria-controls": "lists" })
  const showPanel = button("show-panel", "Fact", { "aria-controls": "panel" })
  const search = el("input", { id: "search", type: "search", placeholder: "Search the memory (Enter)" })
  const slider = el("input", { id: "slider", type: "range", min: "0", max: "1000", value: "1000" })
  const sliderLabel = el("span", { id: "as-of" }, "now (live)")
  const liveBadge = el("span", { id: "live", class: "live" }, "connecting…")
  const header = el(
    "header",
    {},
    showLists,
    el("h1", {}, "Relay Studio"),
    search,
    el("label", { class: "as-of" }, "as of ", slider, sliderLabel),
    liveBadge,
    showPanel
  )

  const threadsBox = el("ul", { id: "threads" })
  const resultsBox = el("ul", { id: "results" })
  const conflictsBox = el("ul", { id: "conflicts" })
  const timelineBox = el("ul", { id: "timeline" })
  const closeLists = button("close-lists", "×", { class: "close", "aria-label": "Close the lists" })
  const sidebar = el(
    "nav",
    { id: "lists" },
    closeLists,
    el("h2", {}, "Search results"),
    resultsBox,
    el("h2", {}, "Threads"),
    threadsBox,
    el("h2", {}, "Open conflicts"),
    conflictsBox,
    el("h2", {}, "Decisions and retractions"),
    timelineBox
  )
  const threadTitle = el("span", { id: "thread-title" })
  const fitButton = button("fit", "Fit", { title: "Fit the thread to the window (F)" })
  const zoomOut = button("zoom-out", "−", { title: "Zoom out (-)", "aria-label": "Zoom out" })
  const zoomIn = button("zoom-in", "+", { title: "Zoom in (+)", "aria-label": "Zoom in" })
  const copyButton = button("copy-mermaid", "Copy as Mermaid")
  const moreButton = button("more", "Draw more facts", { hidden: "" })
  const mermaidOut = el("pre", { id: "mermaid" })
  const closeMermaid = button("close-mermaid", "×", { class: "close", "aria-label": "Close the Mermaid text" })
  const mermaidBox = el("div", { id: "mermaid-box", hidden: "" }, closeMermaid, mermaidOut)
  const graphBox = el("div", {
    id: "graph",
    tabindex: "0",
    "aria-label": "The thread: drag or use the arrow keys to pan, the wheel or + and - to zoom, F to fit"
  })
  const center = el(
    "main",
    {},
    el("div", { class: "toolbar" }, threadTitle, fitButton, zoomOut, zoomIn, copyButton, moreButton),
    graphBox,
    mermaidBox
  )
  const panelBody = el("div", { id: "panel-body" })
  const closePanel = button("close-panel", "×", { class: "close", "aria-label": "Close the fact panel" })
  const panel = el("aside", { id: "panel" }, closePanel, panelBody)
  return {
    showLists,
    showPanel,
    search,
    slider,
    sliderLabel,
    liveBadge,
    header,
    threadsBox,
    resultsBox,
    conflictsBox,
    timelineBox,
    closeLists,
    sidebar,
    threadTitle,
    fitButton,
    zoomOut,
    zoomIn,
    copyButton,
    moreButton,
    mermaidOut,
    closeMermaid,
    mermaidBox,
    graphBox,
    center,
    panelBody,
    closePanel,
    panel
  }
}

export type Page = ReturnType<typeof makePage>
