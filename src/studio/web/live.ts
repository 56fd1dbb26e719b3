/// <reference lib="dom" />
/**
 * The live feed: the studio's server-sent event stream. Writes arrive in bursts, so a refresh
 * waits for a short quiet moment after the last record; the threads list (the connected components
 * of the whole graph: the costliest read) is read again at most every `threadsEvery`, the
 * conflicts, the timeline and the open thread on every refresh. A tab on a busy memory then cannot
 * keep the database busy for everyone else.
 */
import { base, now } from "./api.js"
import { setText } from "./dom.js"
import type { View } from "./view.js"

const threadsEvery = 30_000

export const listen = (view: View, badge: HTMLElement, refresh: (threadsToo: boolean) => Promise<void>) => {
  let pending: number | undefined
  const events = new EventSource(`${base}/events`)
  events.addEventListener("open", () => setText(badge, "live"))
  events.addEventListener("error", () => setText(badge, "reconnecting…"))
  events.addEventListener("record", () => {
    if (view.asOf !== null) return
    window.clearTimeout(pending)
    // An empty list is read again at once: the first facts of a memory show as they are saved.
    const threadsToo = view.clusters.length === 0 || now() - view.threadsAt >= threadsEvery
    pending = window.setTimeout(() => void refresh(threadsToo), 150)
  })
}
