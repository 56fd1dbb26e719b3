import type { ClaimTaskOutput, FinishTaskOutput, ListTasksOutput, PostTaskOutput, Task } from "../../domain/tasks.js"
import { list, more, type Page, quote, type Render } from "./page.js"

/**
 * `<id> [status] <title> by <writer> <age>`, then who holds it, its failed tries, who finished it
 * last (with the note) and the facts it is about, each when there is one.
 */
export const taskLine = (t: Task, p: Page): string => {
  const held = t.status === "claimed" && t.lease_expires_at !== null
    ? `; held by ${t.claimed_by}, lease ends ${p.left(t.lease_expires_at)}`
    : ""
  const tries = t.attempts > 0 ? `; ${t.attempts}/${t.max_attempts} failed` : ""
  // Who did or failed it is said even without a note: the board names the doer, not only the poster.
  const last = t.last_note
  const note = last === null ?
    "" :
    `; ${last.outcome === t.status ? "" : "last "}${last.outcome} by ${last.by}${
      last.note === null ? "" : `: ${quote(last.note)}`
    }`
  return `${p.id(t.id)} [${t.status.replace("_", " ")}] ${quote(t.title)} by ${t.written_by} ${
    p.when(t.created_at)
  }${held}${tries}${note}${t.about.length === 0 ? "" : `; about ${t.about.map(p.id).join(", ")}`}`
}

/** A task's detail, where a reply is about that one task: the worker that claims it reads it there. */
const detailLine = (t: Task): ReadonlyArray<string> => t.detail === null ? [] : [`Detail: ${quote(t.detail)}`]

export const renderPostTask: Render<typeof PostTaskOutput.Type> = (o, p) => [
  `${o.already_posted ? "Already posted" : "Posted"}: ${taskLine(o.task, p)}`,
  ...detailLine(o.task),
  ...(o.task.status === "awaiting_approval" ? ["A person must approve it before anyone can claim it."] : [])
]

export const renderClaimTask: Render<typeof ClaimTaskOutput.Type> = (o, p) =>
  o.task === null ? ["No open task to claim."] : [
    `${o.heartbeat ? "Lease extended" : "Claimed"}: ${taskLine(o.task, p)}`,
    ...detailLine(o.task),
    `fencing_token ${o.fencing_token}; lease ends ${
      o.lease_expires_at === null ? "never" : p.left(o.lease_expires_at)
    }. Heartbeat before then with the token; finish with it.`
  ]

export const renderFinishTask: Render<typeof FinishTaskOutput.Type> = (o, p) => [
  `${o.already_finished ? "Already finished" : "Finished"} (${o.outcome}): ${taskLine(o.task, p)}`,
  ...detailLine(o.task),
  ...(o.procedure_run === undefined ? [] : [
    `Run recorded (${o.procedure_run.outcome}) of procedure ${
      p.id(o.procedure_run.procedure_id)
    }: ${o.procedure_run.success} of ${o.procedure_run.success + o.procedure_run.failure} runs succeeded`
  ])
]

export const renderListTasks: Render<typeof ListTasksOutput.Type> = (o, p) => [
  `Totals: ${Object.entries(o.totals).filter(([, n]) => n > 0).map(([s, n]) => `${s} ${n}`).join(", ") || "none"}`,
  ...list("Tasks, newest first", o.tasks, (t) => taskLine(t, p), "none"),
  ...more(o, "relay_list_tasks")
]
