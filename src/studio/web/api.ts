/// <reference lib="dom" />
/**
 * What the page reads: the studio's own JSON API (src/studio/studioApi.ts) and the host's time.
 * Only GET, with the session cookie; an answer that is not 2xx is thrown with its status and body.
 */

export interface Fact {
  id: string
  content: string
  written_by: string
  session_id: string
  created_at: string
  parent_id: string | null
  status: "active" | "superseded" | "stale" | "retracted"
}
export interface ThreadDecision {
  winner_id: string
  loser_id: string
  reason: string
  resolved_by: string
  created_at: string
}
export interface ThreadPage {
  root_id: string
  facts: Array<Fact>
  decisions: Array<ThreadDecision>
  next_cursor: string | null
}
export interface ContextOut {
  chain: Array<Fact>
  superseded_by: Array<
    { fact_id: string; winner_id: string; winner_content: string; reason: string; resolved_by: string }
  >
}
export interface ImpactOut {
  dependents: Array<{ fact: Fact; distance: number }>
  next_cursor: string | null
}
export interface Cluster {
  id: number
  size: number
  facts: Array<Fact>
}
export interface Conflict {
  parent: Fact
  children: Array<Fact>
  children_total: number
}
export interface TimelineEntry {
  kind: "decision" | "retraction"
  created_at: string
  by: string
  reason: string
  winner_id: string | null
  winner_content: string | null
  fact_id: string
  fact_content: string
}
/** A procedure's counts and versions as relay_find_procedure answers them (issue 44). */
export interface RunCounts {
  success: number
  failure: number
  rate: number
}
export interface Procedure {
  fact: Fact
  version: number
  preconditions: Array<string>
  steps: Array<string>
  runs: RunCounts
  earlier: Array<{ id: string; version: number; runs: RunCounts }>
  revised_by: string | null
}
export interface Run {
  id: string
  outcome: "success" | "failure"
  failed_step: number | null
  note: string | null
  ran_by: string
  created_at: string
  task_id: string | null
}
/** The studio's procedure answer (src/studio/studioProcedure.ts): one page of runs and what it leaves out. */
export interface ProcedureView {
  procedure: Procedure
  runs: Array<Run>
  next_cursor: string | null
  runs_more: number
  earlier_more: number
}

export const base = "/studio"

/**
 * Now, by the host's Clock: the page is stamped with it when served (studioServer.ts), and time
 * since then is the browser's monotonic timer, so a host on a TestClock sets the page's time too.
 */
const servedAt = Number(document.body.dataset["now"])
const loadedAt = performance.now()
export const now = () => servedAt + (performance.now() - loadedAt)

export const api = async <A>(route: string, params: Record<string, string | null | undefined> = {}): Promise<A> => {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== "") q.set(k, v)
  const r = await fetch(`${base}/api/${route}?${q.toString()}`, { credentials: "same-origin" })
  const body = (await r.json()) as A & { error?: { message: string }; team?: boolean }
  if (!r.ok) throw Object.assign(new Error(body.error?.message ?? "failed"), { status: r.status, body })
  return body
}
