import { FalkorDB } from "falkordb"
import { expect, it } from "vitest"
import { type HttpRelay, startHttpRelay, tokenCommand } from "../../bench/relayProcess.js"
import { connectHttp, type HttpClient } from "../support/httpRelay.js"
import { type WriteOutcome, writeUntil } from "../support/writeUntil.js"

/**
 * A primary, two replicas and three sentinels on loopback (scripts/team.mjs); 4 Relay processes over HTTP with 4 tokens
 * writing at once; SIGKILL of the primary at a seeded random moment. Every acknowledged write must
 * be on the promoted replica exactly once, and writes must succeed again without restarting Relay.
 */
interface Team {
  readonly ports: { primary: number; replica: number; replica2: number; sentinels: Array<number> }
  readonly password: string
  readonly env: Record<string, string>
  readonly kill: (role: "primary" | "replica") => Promise<void>
  readonly restart: (role: "primary" | "replica") => Promise<void>
  readonly master: () => Promise<string | null>
  readonly replicasSeen: () => Promise<unknown>
  readonly logs: () => Record<string, string>
  readonly stop: () => Promise<unknown>
}
const teamModule = new URL("../../scripts/team.mjs", import.meta.url).href

/** mulberry32: the kill moment from the seed alone (the ports are free ones the system picks). */
const prng = (seed: number) => () => {
  seed = (seed + 0x6D2B79F5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

type Outcome = WriteOutcome

const runSeed = async (seed: number) => {
  const random = prng(seed)
  const { startTeam } = await import(teamModule) as { startTeam: (o: { base?: number }) => Promise<Team> }
  // Fixed offsets from a seeded base once landed a sentinel on a port in use: let the system pick.
  const team = await startTeam({})
  const relays: Array<HttpRelay> = []
  const clients: Array<HttpClient> = []
  try {
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      ...team.env,
      RELAY_HTTP_PORT: "0",
      RELAY_RATE_LIMIT: "100000",
      // The replies are decoded with the output Schemas: the full JSON.
      RELAY_STRUCTURED_CONTENT: "full"
    }
    // On a loaded machine a connect can time out: try again, as a person at the CLI would.
    const token = async (name: string, tries = 3): Promise<string> => {
      try {
        return (await tokenCommand(env, ["create", "--name", name, "--workspace", "team"])).stdout
      } catch (e) {
        if (tries <= 1) throw e
        return token(name, tries - 1)
      }
    }
    const first = await token("writer-0")
    const tokens = [first, ...await Promise.all([1, 2, 3].map((i) => token(`writer-${i}`)))]
    for (let i = 0; i < 4; i++) relays.push(await startHttpRelay(env))
    for (let i = 0; i < 4; i++) clients.push(await connectHttp(relays[i]!.url, tokens[i]!))

    const outcomes: Array<Outcome> = []
    let killedAt = Number.POSITIVE_INFINITY
    let stopAt = Number.POSITIVE_INFINITY
    const writer = (i: number) =>
      writeUntil(
        clients[i]!,
        () => Date.now() >= stopAt,
        (n) => `seed ${seed} writer ${i} write ${n}`,
        `failover-${seed}`,
        (o) => outcomes.push(o)
      )
    const started = Date.now()
    const writers = [0, 1, 2, 3].map(writer)
    // The kill falls at a seeded moment 0.5-2.5 s into steady writing (after the first acknowledged write).
    // Bounded: a run whose every write fails says why instead of waiting for the test's timeout.
    const waitSince = Date.now()
    while (!outcomes.some((o) => o.acked)) {
      if (Date.now() - waitSince > 30_000) {
        stopAt = Date.now()
        await Promise.all(writers)
        throw new Error(`no write acknowledged in 30 s: ${outcomes[0]?.error}`)
      }
      await sleep(50)
    }
    await sleep(500 + random() * 2000)
    killedAt = Date.now()
    await team.kill("primary")
    // The sentinels promote one replica and re-point the other at it, which then confirms writes
    // (RELAY_MIN_REPLICAS=1). The killed server is started again, as its supervisor would, once a
    // replica is promoted; the first write after the kill does not wait for it.
    const replicas = [team.ports.replica, team.ports.replica2].map((p) => `127.0.0.1:${p}`)
    while (!replicas.includes((await team.master()) ?? "") && Date.now() - killedAt < 30_000) await sleep(100)
    const promotedAfterMs = Date.now() - killedAt
    // Read before the restart changes it: why the sentinels found no replica fit to promote.
    const replicasSeen = replicas.includes((await team.master()) ?? "") ? null : await team.replicasSeen()
    await team.restart("primary")
    // Write on until 5 s after the first success after the kill, or 20 s at most.
    for (;;) {
      await sleep(200)
      const firstAfter = outcomes.find((o) => o.acked && o.startedAt > killedAt)
      if (firstAfter !== undefined && Date.now() - firstAfter.at > 3000) break
      if (Date.now() - killedAt > 30_000) break
    }
    stopAt = Date.now()
    await Promise.all(writers)

    const master = await team.master()
    const [host, port] = (master ?? "").split(":")
    const db = await FalkorDB.connect({ socket: { host: host!, port: Number(port) }, password: team.password })
    // A master without the graph (no promotion in time, the restarted empty primary still master)
    // reads as nothing found, so the assertions below say what was lost and when the promotion came.
    const rows = await db.selectGraph("relay_ws_team").roQuery<{ content: string; n: number }>(
      "MATCH (f:Fact) RETURN f.content AS content, count(f) AS n"
    ).catch((e: unknown) => {
      if (/empty key/i.test(String(e))) return { data: [] }
      throw e
    })
    await db.close()
    const found = new Map((rows.data ?? []).map((r) => [r.content, r.n]))
    const acked = outcomes.filter((o) => o.acked)
    const lost = acked.filter((o) => !found.has(o.content))
    const duplicated = [...found.values()].filter((n) => n > 1).length
    // The first write both sent and acknowledged after the kill (one in flight at the kill does not count).
    const firstAfter = acked.find((o) => o.startedAt > killedAt)
    const result = {
      seed,
      killAfterMs: killedAt - started,
      promotedAfterMs,
      written: outcomes.length,
      acknowledged: acked.length,
      acknowledgedAfterKill: acked.filter((o) => o.startedAt > killedAt).length,
      foundAfterFailover: found.size,
      lost: lost.length,
      duplicated,
      firstWriteAfterKillMs: firstAfter === undefined ? null : firstAfter.at - killedAt,
      newMaster: replicas.includes(master ?? ""),
      // A replica process that crashed inside FalkorDB (its bug report in its log).
      replicaCrashed: ["replica", "replica2"].some((role) => /BUG REPORT/.test(team.logs()[role] ?? "")),
      errors: Object.entries(outcomes.reduce<Record<string, number>>((m, o) => {
        if (o.error !== undefined) {
          m[`${o.at < killedAt ? "before" : "after"} kill: ${o.error.slice(0, 120)}`] =
            (m[`${o.at < killedAt ? "before" : "after"} kill: ${o.error.slice(0, 120)}`] ?? 0) + 1
        }
        return m
      }, {}))
    }
    process.stderr.write(`failover ${JSON.stringify(result)}\n`)
    if (!result.newMaster || result.lost > 0 || result.duplicated > 0) {
      // What the sentinels saw (sdown, votes, aborted failovers), so a failure in CI says why.
      process.stderr.write(`--- replicas as the first sentinel saw them\n${JSON.stringify(replicasSeen)}\n`)
      for (const [what, tail] of Object.entries(team.logs())) {
        process.stderr.write(`--- ${what}\n${tail.split("\n").slice(-40).join("\n")}\n`)
      }
    }
    return result
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)))
    await Promise.all(relays.map((r) => r.stop()))
    await team.stop()
  }
}

it("loses and duplicates no acknowledged write across a primary's SIGKILL, three seeds", async () => {
  const seeds = (process.env.FAILOVER_SEEDS ?? "1,2,3").split(",").map(Number)
  for (const seed of seeds) {
    let r = await runSeed(seed)
    // FalkorDB 4.16.3's replicas crashed (SIGSEGV in AttributeSet_Update while applying a
    // GRAPH.EFFECT) in about 1 seed of 8, leaving no replica to promote: effects named properties by
    // shifted ids (docs/design/falkordb-effects.md). scripts/team.mjs now replicates writes as
    // queries and none has crashed since; should the engine crash anyway, that is not Relay's
    // failover: the seed runs once more, and a second crash fails the test.
    if (r.replicaCrashed && !r.newMaster) {
      process.stderr.write(
        `failover seed ${seed}: a FalkorDB replica crashed (engine bug report above); running it again\n`
      )
      r = await runSeed(seed)
    }
    expect(r.newMaster).toBe(true)
    expect(r.lost).toBe(0)
    expect(r.duplicated).toBe(0)
    expect(r.acknowledged).toBeGreaterThan(0)
    expect(r.firstWriteAfterKillMs).not.toBeNull()
    // The target is 10 s; asserted generously (a loaded shared machine), the number is printed.
    expect(r.firstWriteAfterKillMs!).toBeLessThan(30_000)
  }
})
