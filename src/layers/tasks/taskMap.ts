import { Schema } from "effect"
import { TaskFromRow } from "../../domain/tasks.js"
import { oneHop } from "../factStore/oneHop.js"

/**
 * A task is a node that keeps what never changes (id, title, detail, written_by, created_at,
 * needs_approval, max_attempts) and a STATE self-loop that keeps what claims, finishes and decisions
 * change (status, seq, holder, fence, lease_until, claim_id, claimed_at, attempts, the last finish,
 * the decision). In FalkorDB 4.16 the first node property SET after any labelled node is created (a
 * save, a post) costs in proportion to the graph's nodes: a claim after a post took 42 ms at 1M
 * facts. An edge's property SET costs what it is (docs/design/performance.md). Schema 6.
 */
const stateOf = (v: string): string => `${v}_s`

/**
 * The task whose id is the Cypher expression `id`, as `t`, and its STATE edge, as `t_s`
 * (`optional`: nulls when there is none).
 */
export const taskById = (id: string, optional = false): string =>
  `${optional ? "OPTIONAL " : ""}MATCH (t:Task {id: ${id}})-[t_s:STATE]->(t) `

/** Binds the STATE edge of the task already bound as `v` (an Expand Into from one node). */
export const withState = (v: string): string => `MATCH (${v})-[${stateOf(v)}:STATE]->(${v}) `

/**
 * Binds a task `v` and its STATE edge found through the edge's index on `where` (a Cypher condition
 * on the edge). The ends are unlabelled: FalkorDB 4.16 seeks the edge index only when neither end is
 * labelled or bound twice (a self-loop pattern scans the label and expands instead).
 */
export const byState = (v: string, where: string): string => `MATCH (${v})-[${stateOf(v)}:STATE]->() WHERE ${where} `

/**
 * The Cypher map every task query returns for the task bound as `v` (its STATE edge bound as
 * stateOf(v)). A claim whose lease ran out (`lease_until <= $now`) shows as open: anyone may claim
 * it. Only a claimed task shows a lease (briefing.ts: a finished one may keep its last). The comprehension's variables are named after `v` (FalkorDB 4.16 binds a comprehension
 * variable once per query).
 */
export const taskMap = (v: string): string => {
  const s = stateOf(v)
  return `{id: ${v}.id, title: ${v}.title, detail: ${v}.detail, written_by: ${v}.written_by, ` +
    `created_at: ${v}.created_at, status: ${shownStatus(s)}, needs_approval: ${v}.needs_approval, ` +
    `decided_by: ${s}.decided_by, attempts: ${s}.attempts, max_attempts: ${v}.max_attempts, ` +
    `claimed_by: ${s}.holder, lease_expires_at: CASE WHEN ${s}.status = 'claimed' THEN ${s}.lease_until END, ` +
    `about: ${aboutOf(v)}, ` +
    `last_note: CASE WHEN ${s}.last_outcome IS NULL THEN null ELSE {outcome: ${s}.last_outcome, ` +
    `note: ${s}.last_note, by: ${finisher(s)}, created_at: ${s}.finished_at} END}`
}

/**
 * Who finished last (`s` a STATE edge): `finished_by`, kept by every finish since it was added;
 * before that, the holder, which a later claim replaces (a failure by one agent then read as another's).
 */
export const finisher = (s: string): string => `coalesce(${s}.finished_by, ${s}.holder)`

/** The status a reader sees (the pure model's shownStatus), of the STATE edge bound as `s`. */
export const shownStatus = (s: string): string =>
  `CASE WHEN ${s}.status = 'claimed' AND ${s}.lease_until <= $now THEN 'open' ELSE ${s}.status END`

/**
 * The ids of the facts a task names, through the adjacency (oneHop.ts: a plain comprehension cost
 * ~14 us a task, 0.3 ms a page of 21; ABOUT reaches facts only, so the far end is unlabelled).
 */
export const aboutOf = (v: string): string =>
  oneHop({ from: v, dir: "out", type: "ABOUT", path: `${v}_abp`, to: `${v}_about`, yields: `${v}_about.id` })

export const TaskColumn = Schema.Struct({ task: TaskFromRow })

/**
 * The one queue node `q` and its TALLY self-loop `qt`: the lowest place an open task may hold
 * (`qt.head`, moved by claims), the last place given (`qt.tail`) and the board's counts
 * (taskCounts.ts). All of it lives on the edge, for the reason a task's state does (above).
 */
export const queueNode = "MERGE (q:TaskQueue {key: 'queue'}) " +
  "MERGE (q)-[qt:TALLY]->(q) ON CREATE SET qt.tail = 0, qt.head = 1"
