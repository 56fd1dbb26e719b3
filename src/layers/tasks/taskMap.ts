import { Schema } from "effect"
import { TaskFromRow } from "../../domain/tasks.js"
import { oneHop } from "../factStore/oneHop.js"

/**
 * The Cypher map every task query returns for the task bound as `v`. A claim whose lease ran out
 * (`lease_until <= $now`) shows as open: anyone may claim it. The comprehension's variables are named
 * after `v` (FalkorDB 4.16 binds a comprehension variable once per query).
 */
export const taskMap = (v: string): string =>
  `{id: ${v}.id, title: ${v}.title, detail: ${v}.detail, written_by: ${v}.written_by, ` +
  `created_at: ${v}.created_at, status: ${shownStatus(v)}, needs_approval: ${v}.needs_approval, ` +
  `decided_by: ${v}.decided_by, attempts: ${v}.attempts, max_attempts: ${v}.max_attempts, ` +
  `claimed_by: ${v}.holder, lease_expires_at: ${v}.lease_until, ` +
  `about: ${aboutOf(v)}, ` +
  `last_note: CASE WHEN ${v}.last_outcome IS NULL THEN null ELSE {outcome: ${v}.last_outcome, ` +
  `note: ${v}.last_note, by: ${finisher(v)}, created_at: ${v}.finished_at} END}`

/**
 * Who finished last: `finished_by`, kept by every finish since it was added; before that, the holder,
 * which a later claim replaces (a failure by one agent then read as another's).
 */
export const finisher = (v: string): string => `coalesce(${v}.finished_by, ${v}.holder)`

/** The status a reader sees (the pure model's shownStatus). */
export const shownStatus = (v: string): string =>
  `CASE WHEN ${v}.status = 'claimed' AND ${v}.lease_until <= $now THEN 'open' ELSE ${v}.status END`

/**
 * The ids of the facts a task names, through the adjacency (oneHop.ts: a plain comprehension cost
 * ~14 us a task, 0.3 ms a page of 21; ABOUT reaches facts only, so the far end is unlabelled).
 */
export const aboutOf = (v: string): string =>
  oneHop({ from: v, dir: "out", type: "ABOUT", path: `${v}_abp`, to: `${v}_about`, yields: `${v}_about.id` })

export const TaskColumn = Schema.Struct({ task: TaskFromRow })

/**
 * The one queue node `q`, with the lowest place an open task may hold (`q.head`, moved by claims),
 * and its TALLY self-loop `qt`: the last place given (`qt.tail`) and the board's counts
 * (taskCounts.ts). What a post, a finish with a note or an import changes lives on the edge: in
 * FalkorDB 4.16 a statement that creates a node and sets a property of an existing node costs in
 * proportion to the graph's nodes (10-19 ms at 1M), while an edge's property costs what it is.
 */
export const queueNode = "MERGE (q:TaskQueue {key: 'queue'}) ON CREATE SET q.head = 1 " +
  "MERGE (q)-[qt:TALLY]->(q) ON CREATE SET qt.tail = 0"
