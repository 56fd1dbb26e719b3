import { setTimeout as sleep } from "node:timers/promises"
import { afterAll, describe, expect, it } from "vitest"
import { type RunningServer, startServer } from "../support/falkordbServer.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { connectRelayTo, relayPid } from "../support/proof.js"
import { testGraphName } from "../support/testLayer.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

/**
 * The board across real Relay processes sharing one graph: a race of 4 processes x 5 agents (6 s,
 * not the 20 s: the suite's budget), an agent process SIGKILLed holding 5 leases, and the
 * database killed mid-claim. The three run side by side so the suite waits for the longest (the
 * 10 s lease floor of the crash).
 */
const env = { RELAY_RATE_LIMIT: "1000000" }
const opened: Array<RelayClient> = []
let server: RunningServer | undefined
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close().catch(() => undefined)))
  await server?.stop()
})

const open = async (graph: string) => {
  const c = await connectRelay({ graph, env, process: true })
  opened.push(c)
  return c
}

/**
 * The board to race on, posted as a client should: a post that answers `unavailable` (a process's
 * first statements can miss their budget while the whole slow suite loads the machine) is retried
 * with its request_id, which returns what landed instead of posting twice.
 */
const postTasks = async (c: RelayClient, n: number, label: string) => {
  const ids: Array<string> = []
  for (let i = 0; i < n; i++) {
    const args = { title: `${label} ${i}`, written_by: "lead", request_id: `${label}-post-${i}` }
    let r = await c.call("relay_post_task", args)
    for (let tries = 0; tries < 20 && r.isError === true && errorOf(r).code === "unavailable"; tries++) {
      await sleep(250)
      r = await c.call("relay_post_task", args)
    }
    ids.push(outputOf(r).task.id)
  }
  return ids
}

interface Held {
  readonly agent: string
  readonly task: string
  readonly fence: number
}

const race = async () => {
  const graph = testGraphName("task_race")
  const relays = await Promise.all([0, 1, 2, 3].map(() => open(graph)))
  const ids = await postTasks(relays[0]!, 50, "race")
  const claims: Array<Held> = []
  const done: Array<Held> = []
  const stopAt = performance.now() + 6_000
  const agent = async (relay: RelayClient, name: string) => {
    let n = 0
    while (performance.now() < stopAt) {
      const r = await relay.call("relay_claim_task", { claimed_by: name, lease_seconds: 60 })
      const c = outputOf(r)
      if (c.task === null) {
        await sleep(20)
        continue
      }
      const held = { agent: name, task: c.task.id, fence: c.fencing_token! }
      claims.push(held)
      // Most are finished; some are given back, to be raced for again.
      const outcome = n++ % 3 === 2 ? "released" : "done"
      const f = await relay.call("relay_finish_task", {
        task_id: held.task,
        claimed_by: name,
        fencing_token: held.fence,
        outcome
      })
      outputOf(f)
      if (outcome === "done") done.push(held)
    }
  }
  await Promise.all(relays.flatMap((r, p) => [0, 1, 2, 3, 4].map((a) => agent(r, `p${p}-a${a}`))))
  const board = outputOf(await relays[0]!.call("relay_list_tasks", { limit: 100 }))
  return { ids, claims, done, board }
}

const crash = async () => {
  const graph = testGraphName("task_crash")
  const survivor = await open(graph)
  const ids = await postTasks(survivor, 5, "crash")
  const victim = await open(graph)
  const held: Array<Held> = []
  for (let i = 0; i < 5; i++) {
    const c = outputOf(await victim.call("relay_claim_task", { claimed_by: "victim", lease_seconds: 10 }))
    held.push({ agent: "victim", task: c.task!.id, fence: c.fencing_token! })
  }
  process.kill(relayPid(victim), "SIGKILL")
  const claimedBefore = outputOf(await survivor.call("relay_claim_task", { claimed_by: "survivor" })).task
  // The survivor polls the queue: each orphan comes back only once its lease has run out.
  const reclaimed = new Set<string>()
  const started = performance.now()
  let firstAt = 0
  while (reclaimed.size < 5 && performance.now() - started < 20_000) {
    const c = outputOf(await survivor.call("relay_claim_task", { claimed_by: "survivor" }))
    if (c.task === null) await sleep(200)
    else {
      if (reclaimed.size === 0) firstAt = performance.now() - started
      reclaimed.add(c.task.id)
    }
  }
  // The victim restarted replays its finishes: every one is lease_lost, and nothing is written.
  const replay = await open(graph)
  const late = await Promise.all(
    held.map((h) =>
      replay.call("relay_finish_task", {
        task_id: h.task,
        claimed_by: "victim",
        fencing_token: h.fence,
        outcome: "done"
      })
    )
  )
  const board = outputOf(await survivor.call("relay_list_tasks", {}))
  return { ids, held, claimedBefore, reclaimed, firstAt, late: late.map((r) => errorOf(r).code), board }
}

const databaseKilled = async () => {
  server = await startServer({ persist: true })
  const graph = testGraphName("task_dbkill")
  const relay = await connectRelayTo(server, { graph, env, process: true })
  opened.push(relay)
  await postTasks(relay, 40, "dbkill")
  const answers = new Map<string, { task: string; fence: number } | null>()
  const unavailable: Array<string> = []
  const attempt = async (requestId: string) => {
    const r = await relay.call("relay_claim_task", { claimed_by: "worker", request_id: requestId }).catch(() => null)
    if (r === null || r.isError === true) {
      unavailable.push(requestId)
      return
    }
    const c = r.structuredContent
    answers.set(requestId, c.task === null ? null : { task: c.task.id, fence: c.fencing_token! })
  }
  const inFlight: Array<Promise<void>> = []
  for (let i = 0; i < 30; i++) {
    inFlight.push(attempt(`claim-${i}`))
    if (i === 12) await server.kill()
    await sleep(5)
  }
  await Promise.all(inFlight)
  await server.restart()
  // Every claim that answered unavailable is retried with its request_id until the database answers.
  for (const requestId of unavailable) {
    for (let tries = 0; tries < 40 && !answers.has(requestId); tries++) {
      await attempt(requestId)
      if (!answers.has(requestId)) await sleep(250)
    }
  }
  const board = outputOf(await relay.call("relay_list_tasks", { limit: 100, status: "claimed" }))
  return { answers, unavailable, board }
}

describe("the task board across processes", () => {
  it("race, crash and database kill", async () => {
    const [r, c, k] = await Promise.all([race(), crash(), databaseKilled()])

    // Race: every task done exactly once; fences of a task are 1..n with no two claims alike (at most
    // one live lease at any moment); every claim the database made was answered to an agent.
    expect(new Set(r.done.map((d) => d.task)).size).toBe(r.done.length)
    expect(r.done.length).toBe(50)
    expect(r.board.totals.done).toBe(50)
    for (const id of r.ids) {
      const fences = r.claims.filter((h) => h.task === id).map((h) => h.fence).sort((a, b) => a - b)
      expect(fences).toEqual(fences.map((_, i) => i + 1))
    }

    // Crash: the orphans come back only after the lease, to the survivor; the replayed finishes lose.
    expect(c.claimedBefore).toBeNull()
    expect([...c.reclaimed].sort()).toEqual([...c.ids].sort())
    expect(c.firstAt).toBeGreaterThan(5_000)
    expect(c.late).toEqual(["lease_lost", "lease_lost", "lease_lost", "lease_lost", "lease_lost"])
    expect(c.board.tasks.every((t) => t.claimed_by === "survivor" && t.status === "claimed")).toBe(true)

    // Database killed: some claims answered unavailable; after retries each request holds one task or
    // none, no task has two holders, and every task claimed in the graph was answered to its request.
    expect(k.unavailable.length).toBeGreaterThan(0)
    const held = [...k.answers.values()].filter((a) => a !== null)
    expect(new Set(held.map((h) => h.task)).size).toBe(held.length)
    expect(held.every((h) => h.fence === 1)).toBe(true)
    expect(k.board.tasks.map((t) => t.id).sort()).toEqual(held.map((h) => h.task).sort())
  }, 120_000)
})
