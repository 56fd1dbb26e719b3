/**
 * `npm run bench:tasks`: the task board end to end over stdio (dist/server.js and the SDK client),
 * on a graph holding `FACTS` facts (default 100,000, `npm run bench`'s generated memory) and `TASKS`
 * tasks (default 10,000), both made in bulk: p50 of a claim by id, a claim from
 * the queue, a heartbeat, a finish, a list of the board and a post from one process; then claims/s from 4 processes x 5 agents on
 * one queue (claim, finish done) for `SECONDS` (default 5), then claims alone (each agent keeps what
 * it takes) for as long, checking no task was claimed twice in either; and
 * the PROFILE of the queue's claim statement (no Sort over the open tasks).
 */
import { randomUUID } from "node:crypto"
import { taskStatuses } from "../src/domain/tasks.js"
import { queueQuery } from "../src/layers/tasks/claim.js"
import { recountQuery } from "../src/layers/tasks/taskCounts.js"
import { bareClient, openDatabase, relayEnv } from "./db.js"
import { generateGraph, loadGraph } from "./graph.js"
import { stdioClient, type StdioRelay } from "./relay.js"

interface Claimed {
  readonly task: { readonly id: string }
  readonly fencing_token: number
}

const facts = Number(process.env.FACTS ?? 100_000)
const tasks = Number(process.env.TASKS ?? 10_000)
const seconds = Number(process.env.SECONDS ?? 5)
const p50 = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const db = await openDatabase()
const graphName = `relay_bench_tasks_${randomUUID().slice(0, 8)}`
const client = await bareClient(db)
const graph = client.selectGraph(graphName)
try {
  if (facts > 0) await loadGraph(client, graphName, generateGraph(facts, Date.now()))
  // The indexes first (a Relay process makes them at start), then the tasks in bulk.
  const first = await stdioClient(relayEnv(db, graphName))
  await first.call("relay_list_tasks", {})
  const now = Date.now()
  for (let i = 0; i < tasks; i += 2000) {
    // Posted a second apart, the last one now.
    const batch = Array.from(
      { length: Math.min(2000, tasks - i) },
      (_, j) => ({ id: randomUUID(), seq: i + j + 1, at: now - (tasks - i - j) * 1000 })
    )
    await graph.query(
      "UNWIND $batch AS b CREATE (t:Task {id: b.id, title: 'bench task', written_by: 'lead', created_at: b.at, " +
        "needs_approval: false, max_attempts: 3})-[:STATE {status: 'open', attempts: 0, fence: 0, seq: b.seq}]->(t)",
      { params: { batch, now } }
    )
  }
  // The queue's places, then its TALLY edge (which takes them over) and counters by the recount a
  // migration runs (taskCounts.ts).
  await graph.query("MERGE (q:TaskQueue {key: 'queue'}) SET q.head = 1, q.tail = $tasks", { params: { tasks } })
  await graph.query(recountQuery, { params: { statuses: [...taskStatuses] } })

  const timed = async (f: () => Promise<unknown>) => {
    const t0 = performance.now()
    await f()
    return performance.now() - t0
  }
  const byId: Array<number> = []
  const queue: Array<number> = []
  const beat: Array<number> = []
  const finish: Array<number> = []
  const listed: Array<number> = []
  const posted: Array<number> = []
  for (let i = 0; i < 200; i++) {
    posted.push(await timed(() => first.call("relay_post_task", { title: `posted ${i}`, written_by: "lead" })))
    listed.push(await timed(() => first.call("relay_list_tasks", {})))
    let held = { id: "", fence: 0 }
    queue.push(
      await timed(async () => {
        const c = await first.call("relay_claim_task", { claimed_by: "solo" })
        held = { id: c.task!.id, fence: c.fencing_token! }
      })
    )
    beat.push(
      await timed(() =>
        first.call("relay_claim_task", { claimed_by: "solo", task_id: held.id, fencing_token: held.fence })
      )
    )
    finish.push(
      await timed(() =>
        first.call("relay_finish_task", {
          task_id: held.id,
          claimed_by: "solo",
          fencing_token: held.fence,
          outcome: "released"
        })
      )
    )
    byId.push(await timed(() => first.call("relay_claim_task", { claimed_by: "solo", task_id: held.id })))
  }
  console.log(
    `one process, ${facts} facts, ${tasks} tasks: p50 claim by id ${p50(byId).toFixed(2)} ms, claim from queue ${
      p50(queue).toFixed(2)
    } ms, heartbeat ${p50(beat).toFixed(2)} ms, finish ${p50(finish).toFixed(2)} ms, ` +
      `list (first page and the board's totals) ${p50(listed).toFixed(2)} ms, post ${p50(posted).toFixed(2)} ms`
  )

  const relays = [first, ...(await Promise.all([1, 2, 3].map(() => stdioClient(relayEnv(db, graphName)))))]
  /**
   * 4 processes x 5 agents claim from the queue for `seconds`, each agent doing `after` with what it
   * took; prints claims/s and how many tasks were claimed twice.
   */
  const race = async (
    label: string,
    prefix: string,
    after: (r: StdioRelay, by: string, c: Claimed) => Promise<unknown>
  ) => {
    const claimed = new Map<string, number>()
    let claims = 0
    const stopAt = performance.now() + seconds * 1000
    const started = performance.now()
    await Promise.all(relays.flatMap((r, p) =>
      [0, 1, 2, 3, 4].map(async (a) => {
        const by = `${prefix}${p}a${a}`
        while (performance.now() < stopAt) {
          const c = await r.call("relay_claim_task", { claimed_by: by })
          if (c.task === null) break
          claims++
          claimed.set(c.task.id, (claimed.get(c.task.id) ?? 0) + 1)
          await after(r, by, c as Claimed)
        }
      })
    ))
    const elapsed = (performance.now() - started) / 1000
    console.log(
      `4 processes x 5 agents, ${label}: ${claims} claims in ${elapsed.toFixed(1)} s = ${
        (claims / elapsed).toFixed(0)
      } claims/s; tasks claimed twice: ${[...claimed.values()].filter((n) => n > 1).length}`
    )
  }
  await race(
    "claim+finish",
    "p",
    (r, by, c) =>
      r.call("relay_finish_task", {
        task_id: c.task.id,
        claimed_by: by,
        fencing_token: c.fencing_token,
        outcome: "done"
      })
  )
  // Claims alone (what the 500/s names): each agent keeps what it takes, so every call is a
  // compare-and-set on the queue's head.
  await race("claims alone", "q", () => Promise.resolve())
  // PROFILE runs the statement: it claims one task of what remains.
  const profile = await graph.profile(
    `CYPHER claimId='${randomUUID()}' by='profiler' lease=1000 now=${Date.now()} window=64 ${queueQuery}`
  )
  console.log(`PROFILE of the queue's claim:\n${profile.join("\n")}`)
  await Promise.all(relays.map((r) => r.close()))
} finally {
  await graph.delete().catch(() => undefined)
  await client.close()
  await db.stop()
}
