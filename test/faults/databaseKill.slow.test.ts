import { afterAll, describe, expect, it } from "@effect/vitest"
import { randomInt } from "node:crypto"
import { setTimeout as sleep } from "node:timers/promises"
import { type RunningServer, startServer } from "../support/falkordbServer.js"
import type { RelayClient } from "../support/mcpClient.js"
import {
  type Admin,
  connectAdmin,
  connectRelayTo,
  isAlive,
  relayPid,
  repeated,
  seededRandom,
  storedFacts
} from "../support/proof.js"
import { testGraphName } from "../support/testLayer.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

const writers = 4
const lanesPerWriter = 2
/** Set RELAY_FAULT_SEED to replay a run; the seed is printed either way. */
const seed = process.env.RELAY_FAULT_SEED === undefined ? randomInt(1, 2 ** 31) : Number(process.env.RELAY_FAULT_SEED)

interface Attempt {
  readonly writer: number
  readonly content: string
  readonly started: number
  readonly ended: number
  readonly id: string | null
  /** The error code, "threw" when the call itself failed (no MCP answer), null on success. */
  readonly code: string | null
}

const until = async (done: () => boolean, timeoutMs: number) => {
  const deadline = performance.now() + timeoutMs
  while (!done() && performance.now() < deadline) await sleep(25)
  return done()
}

/**
 * Several Relay processes write to a private FalkorDB with AOF fsync on every write; the server is
 * SIGKILLed at a seeded random moment and restarted on the same data a seeded while later. Every
 * acknowledged write must be there exactly once, every failure must be `unavailable` and quick, and
 * the same Relay processes must write again without being restarted.
 */
describe("FalkorDB killed under several writing Relay processes", () => {
  let server: RunningServer | undefined
  let admin: Admin | undefined
  let relays: Array<RelayClient> = []
  afterAll(async () => {
    await Promise.all(relays.map((r) => r.close()))
    await admin?.close()
    await server?.stop()
  })

  it("keeps every acknowledged write exactly once, answers unavailable meanwhile, and recovers on its own", async () => {
    const rand = seededRandom(seed)
    const killAfter = 200 + Math.floor(rand() * 800)
    const downFor = 300 + Math.floor(rand() * 1200)
    console.log(
      `faults: seed=${seed} (replay with RELAY_FAULT_SEED=${seed}) kill_after=${killAfter}ms down_for=${downFor}ms`
    )

    server = await startServer({ persist: true })
    const db = server
    const graph = testGraphName("dbkill")
    relays = await Promise.all(
      Array.from(
        { length: writers },
        (_, w) =>
          connectRelayTo(db, { graph, name: `writer-${w}`, env: { RELAY_RATE_LIMIT: "1000000" }, process: true })
      )
    )
    const pids = relays.map(relayPid)
    // each process connects before the fault, so the fault hits live connections
    for (const r of await Promise.all(relays.map((relay) => relay.call("relay_get_current_state", { limit: 1 })))) {
      expect(r.isError).toBeFalsy()
    }

    const attempts: Array<Attempt> = []
    let stop = false
    const lane = async (writer: number, lane: number) => {
      for (let i = 0; !stop; i++) {
        const content = `seed ${seed} writer ${writer} lane ${lane} write ${i}`
        const started = performance.now()
        const args = { content, written_by: `writer-${writer}`, session_id: `faults-${seed}` }
        const answer = await relays[writer]!.call("relay_save_fact", args).then(
          (r) => ({
            id: r.isError === true ? null : outputOf(r).fact.id as string,
            code: r.isError === true ? errorOf(r).code as string : null
          }),
          () => ({ id: null, code: "threw" })
        )
        attempts.push({ writer, content, started, ended: performance.now(), ...answer })
        // A call that failed at once is not tried again in a tight loop.
        if (answer.code !== null) await sleep(10)
      }
    }
    const lanes = relays.flatMap((_, w) => Array.from({ length: lanesPerWriter }, (_, l) => lane(w, l)))

    let killedAt = 0
    let backAt = 0
    let allRecovered = false
    // Whatever fails below, the writers stop: left running, they wrote on against nothing.
    try {
      await sleep(killAfter)
      killedAt = performance.now()
      await db.kill()
      await sleep(downFor)
      await db.restart()
      backAt = performance.now()
      const recovered = (w: number) =>
        attempts.filter((a) => a.writer === w && a.code === null && a.started >= backAt).length >= 3
      allRecovered = await until(() => relays.every((_, w) => recovered(w)), 15_000)
    } finally {
      stop = true
      await Promise.all(lanes)
    }

    admin = await connectAdmin(db)
    const stored = await storedFacts(admin, graph)
    const acked = attempts.filter((a) => a.code === null)
    const failed = attempts.filter((a) => a.code !== null)
    const firstAckAfter = relays.map((_, w) =>
      Math.min(...acked.filter((a) => a.writer === w && a.ended > backAt).map((a) => a.ended - backAt))
    )
    const slowest = Math.max(...attempts.map((a) => a.ended - a.started))
    const storedIds = new Set(stored.map((f) => f.id))
    console.log(
      `faults: seed=${seed} written=${attempts.length} acknowledged=${acked.length} failed=${failed.length} ` +
        `(codes: ${[...new Set(failed.map((a) => a.code))].join(",") || "none"}) found=${stored.length} ` +
        `(acknowledged found ${acked.filter((a) => storedIds.has(a.id)).length}, landed unacknowledged ${
          stored.length - acked.length
        }) ` +
        `recovery=${Math.round(Math.max(...firstAckAfter))}ms (per process ${
          firstAckAfter.map(Math.round).join("/")
        }) ` +
        `slowest_call=${Math.round(slowest)}ms kill_after=${killAfter}ms down_for=${downFor}ms`
    )

    // the fault was felt, and the same processes came back by themselves
    expect(attempts.filter((a) => a.started < killedAt && a.code === null).length).toBeGreaterThan(0)
    expect(failed.length).toBeGreaterThan(0)
    expect(allRecovered).toBe(true)
    expect(pids.map(isAlive)).toEqual(pids.map(() => true))
    expect(relays.map(relayPid)).toEqual(pids)

    // every failure answered unavailable, quickly, and only while the database was away
    expect([...new Set(failed.map((a) => a.code))]).toEqual(["unavailable"])
    expect(slowest).toBeLessThan(3000)
    expect(failed.filter((a) => a.started >= backAt)).toEqual([])
    expect(failed.filter((a) => a.ended < killedAt)).toEqual([])

    // every acknowledged write is there exactly once, and nothing is there that nobody wrote
    const written = new Map(attempts.map((a) => [a.content, a]))
    expect(repeated(stored.map((f) => f.id))).toEqual([])
    expect(repeated(stored.map((f) => f.content))).toEqual([])
    expect(stored.filter((f) => !written.has(f.content ?? ""))).toEqual([])
    const byId = new Map(stored.map((f) => [f.id, f]))
    for (const a of acked) expect(byId.get(a.id)?.content, a.content).toBe(a.content)
    // and every stored fact, acknowledged or not, is whole
    for (const f of stored) {
      expect(f).toMatchObject({ written_by: expect.stringMatching(/^writer-\d$/), session_id: `faults-${seed}` })
    }
  })
})
