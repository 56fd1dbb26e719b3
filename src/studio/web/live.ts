/// <reference lib="dom" />
/**
 * The live feed: the studio's server-sent event stream. Writes arrive in bursts, so a refresh
 * waits for a short quiet moment after the last record; then the threads list, the conflicts, the
 * timeline and the open thread are read again. The threads list is a page read through indexes
 * (threads and clusters kept on write, issue 42), so a new thread shows at once.
 */
import { base } from "./api.js"
import { setText } from "./dom.js"
import type { View } from "./view.js"

export const listen = (view: View, badge: HTMLElement, refresh: (threadsToo: boolean) => Promise<void>) => {
  let pending: number | undefined
  const events = new EventSource(`${base}/events`)
  events.addEventListener("open", () => setText(badge, "live"))
  events.addEventListener("error", () => setText(badge, "reconnecting…"))
  // The server could not read new records (logged there); it keeps polling, and the next record says live again.
  events.addEventListener("unavailable", () => setText(badge, "database unavailable…"))
  events.addEventListener("record", () => {
    setText(badge, "live")
    if (view.asOf !== null) return
    window.clearTimeout(pending)
    pending = window.setTimeout(() => void refresh(true), 150)
  })
}
