import type { Cluster, ThreadPage } from "./api.js"
import { now } from "./api.js"
import type { ForkMark } from "./drawing.js"

/**
 * What the page shows, in one place: made once by app.ts and handed to the parts that read or
 * change it (drawing, panel, lists, live), so no part keeps state of its own.
 */
export interface View {
  /** The time slider's instant (ISO), or null: now, live. */
  asOf: string | null
  /** The fact whose thread is open. */
  threadOf: string | null
  thread: ThreadPage | null
  /** The parents relay_detect_conflicts lists with an open conflict in the open thread. */
  openForks: Set<string>
  /** The open thread's fork marks (drawing.ts forkMarks). */
  marks: Map<string, ForkMark>
  selected: string | null
  /** The slider's left end: just before the oldest fact listed. */
  minTime: number
  refreshes: number
  clusters: Array<Cluster>
  retractions: Map<string, { reason: string; by: string }>
  /** Count the reads of the thread, the panel and the lists: only the newest answer of each is shown. */
  ticket: number
  panelTicket: number
  listsTicket: number
  /** Which database and graph the studio reads (null in team mode: the token's workspace). */
  where: string | null
}

export const makeView = (): View => ({
  asOf: null,
  threadOf: null,
  thread: null,
  openForks: new Set(),
  marks: new Map(),
  selected: null,
  minTime: now() - 24 * 3600_000,
  refreshes: 0,
  clusters: [],
  retractions: new Map(),
  ticket: 0,
  panelTicket: 0,
  listsTicket: 0,
  where: null
})

/** What a click on a fact or a list entry does; app.ts implements them. */
export interface Actions {
  readonly openFact: (id: string) => Promise<void>
  readonly loadThread: (id: string) => Promise<void>
  readonly selectFact: (id: string) => Promise<void>
}
