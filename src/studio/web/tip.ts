/// <reference lib="dom" />
/** The tooltip of a fact's node: its whole text, writer, status and the stamp with its age. */
import { ago, stamp } from "./ages.js"
import type { Fact } from "./api.js"
import { el } from "./dom.js"

export const makeTip = () => {
  const box = el("div", { id: "tip", role: "tooltip", hidden: "" })
  const show = (f: Fact, anchor: Element, now: number) => {
    box.replaceChildren(
      el("p", { class: "tip-text" }, f.content),
      el(
        "p",
        { class: "tip-meta" },
        `${f.written_by} · ${f.status} · saved ${stamp(f.created_at)} (${ago(f.created_at, now)})`
      )
    )
    box.removeAttribute("hidden")
    const r = anchor.getBoundingClientRect()
    const width = box.offsetWidth
    const height = box.offsetHeight
    const left = Math.min(Math.max(4, r.left + r.width / 2 - width / 2), window.innerWidth - width - 4)
    const below = r.bottom + 6 + height <= window.innerHeight
    box.style.left = `${left}px`
    box.style.top = `${below ? r.bottom + 6 : Math.max(4, r.top - height - 6)}px`
  }
  const hide = () => box.setAttribute("hidden", "")
  return { box, show, hide }
}
