/// <reference lib="dom" />
/**
 * What the thread's place shows when there is no thread to draw: a memory with nothing in it says
 * which database and graph the studio reads and how to fill it; an instant before the thread
 * existed says so.
 */
import { stamp } from "./ages.js"
import { el } from "./dom.js"
import type { View } from "./view.js"

export const emptyState = (view: View) => {
  const box = el("div", { id: "empty" })
  if (view.asOf !== null && view.threadOf !== null) {
    box.append(
      el("h2", {}, "Not saved yet at this time"),
      el("p", {}, `Nothing of this thread had been saved by ${stamp(view.asOf)}. Move the time slider to the right.`)
    )
  } else if (view.clusters.length > 0) {
    box.append(el("p", {}, "Pick a thread from the list."))
  } else {
    box.append(el("h2", {}, "This memory is empty"))
    if (view.where === null) {
      box.append(el("p", {}, "You see the workspace of the token you signed in with: nothing is saved in it yet."))
    } else {
      box.append(
        el("p", {}, "Relay Studio reads ", el("strong", { id: "where" }, view.where), "."),
        el(
          "p",
          {},
          "To look around with the demo story, load it into this graph: ",
          el("code", {}, "npm run seed"),
          ". (",
          el("code", {}, "npm run demo"),
          " plays the story in a graph of its own and drops it at the end.)"
        ),
        el(
          "p",
          {},
          "To see your assistants' memory, start the studio with the same RELAY_GRAPH and FalkorDB settings as " +
            "their Relay (",
          el("code", {}, "npm run check-db"),
          " tells which database a setting points at)."
        )
      )
    }
    box.append(el("p", {}, "Facts show here as soon as they are saved."))
  }
  return box
}
