import { afterAll, describe, expect, it } from "@effect/vitest"
import { setTimeout as sleep } from "node:timers/promises"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin, isAlive, relayPid, storedFacts } from "../support/proof.js"
import { outputOf } from "../support/toolOutputs.js"

/**
 * A Relay process SIGKILLed while hundreds of saves are in flight. A save is one statement, so
 * whatever reached the database is a whole fact (every property, its BUILDS_ON edge); a save split
 * into several statements would leave a fact without its edge or its properties here.
 */
describe("a Relay process killed mid-write", () => {
  let relay: RelayClient | undefined
  let admin: Admin | undefined
  afterAll(async () => {
    await relay?.close()
    if (relay !== undefined) await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await admin?.close()
  })

  it("leaves no partial fact", async () => {
    relay = await connectRelay({ env: { RELAY_RATE_LIMIT: "1000000" }, process: true })
    admin = await connectAdmin()
    const graph = relay.graph
    const roots = await Promise.all(
      [0, 1, 2].map((i) =>
        relay!.call("relay_save_fact", { content: `thread ${i}`, written_by: "victim", session_id: "kill" })
      )
    )
    const rootIds = roots.map((r) => outputOf(r).fact.id as string)
    const pid = relayPid(relay)

    const total = 600
    const acked: Array<{ id: string; parent: string }> = []
    const calls = Array.from({ length: total }, (_, i) => {
      const parent = rootIds[i % 3]!
      return relay!.call("relay_save_fact", {
        content: `step ${i}`,
        written_by: "victim",
        session_id: "kill",
        parent_fact_id: parent
      })
        .then((r) => {
          if (r.isError !== true) acked.push({ id: outputOf(r).fact.id, parent })
        }, () => undefined)
    })
    // Killed once 30 saves are acknowledged, or at the deadline: on a loaded machine most of the 600
    // calls queue past their budget (unavailable) and only a few are acknowledged before it.
    const deadline = performance.now() + 40_000
    while (acked.length < 30 && performance.now() < deadline) await sleep(2)
    process.kill(pid, "SIGKILL")
    await Promise.all(calls)
    // The calls end when its pipes close, which can come before the kernel has reaped the process.
    const reaped = performance.now() + 10_000
    while (isAlive(pid) && performance.now() < reaped) await sleep(5)
    expect(isAlive(pid)).toBe(false)

    // the database may still be running what the dead process sent: wait until the graph stops changing
    let count = -1
    for (let stable = 0; stable < 4;) {
      const [row] = await admin.query<{ n: number }>(graph, "MATCH (f:Fact) RETURN count(f) AS n")
      stable = row?.n === count ? stable + 1 : 0
      count = row?.n ?? 0
      await sleep(50)
    }

    const stored = await storedFacts(admin, graph)
    const children = stored.filter((f) => !rootIds.includes(f.id ?? ""))
    console.log(`relay kill: sent=${total} acknowledged=${acked.length} landed=${children.length}`)
    for (const f of stored) {
      for (const key of ["id", "content", "norm", "written_by", "session_id", "created_at"] as const) {
        expect(f[key], `${f.id} ${key}`).not.toBeNull()
      }
    }
    for (const f of children) {
      expect(f.parents).toHaveLength(1)
      expect(f.parents[0]).toBe(rootIds[Number(/^step (\d+)$/.exec(f.content ?? "")?.[1]) % 3])
    }
    const byId = new Map(stored.map((f) => [f.id, f]))
    for (const a of acked) expect(byId.get(a.id)?.parents).toEqual([a.parent])
    // and the kill did land mid-stream: some saves were acknowledged, some never reached the database
    expect(acked.length).toBeGreaterThanOrEqual(1)
    expect(children.length).toBeGreaterThanOrEqual(acked.length)
    expect(children.length).toBeLessThan(total)
  }, 120_000)
})
