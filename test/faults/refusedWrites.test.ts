import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { rmSync } from "node:fs"
import { setTimeout as sleep } from "node:timers/promises"
import { freePort, type RunningServer, startServer } from "../support/falkordbServer.js"
import { saveFork } from "../support/fork.js"
import type { RelayClient, ToolCallResult } from "../support/mcpClient.js"
import { type Admin, connectAdmin, connectRelayTo, isAlive, relayPid } from "../support/proof.js"
import { testGraphName } from "../support/testLayer.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

interface Fault {
  readonly name: string
  /** What the server answers a write with: logged to stderr, never shown to the client. */
  readonly reply: RegExp
  readonly on: (admin: Admin, server: RunningServer) => Promise<void>
  readonly off: (admin: Admin) => Promise<void>
}

const config = (admin: Admin, key: string, value: string) =>
  admin.command(["CONFIG", "SET", key, value]).then(() => undefined)

/**
 * The ways a live database refuses writes: memory full, disk unwritable, not enough replicas
 * (read-only by policy), and a read-only replica. The server's own error text is what a driver
 * would show; Relay must answer `unavailable` with its generic message, log the reply, keep
 * reading, and write again once the database accepts writes, without a restart.
 */
const faults: ReadonlyArray<Fault> = [
  {
    name: "memory full (maxmemory 1mb, noeviction)",
    reply: /OOM command not allowed/,
    on: async (admin) => {
      await config(admin, "maxmemory-policy", "noeviction")
      await config(admin, "maxmemory", "1mb")
    },
    off: (admin) => config(admin, "maxmemory", "0")
  },
  {
    name: "disk not writable (RDB save failed, stop-writes-on-bgsave-error)",
    reply: /MISCONF/,
    on: async (admin, server) => {
      await config(admin, "save", "3600 1")
      rmSync(server.dir, { recursive: true, force: true })
      await admin.command(["BGSAVE"])
      for (let i = 0; i < 100; i++) {
        if (/rdb_last_bgsave_status:err/.test(String(await admin.command(["INFO", "persistence"])))) return
        await sleep(20)
      }
      throw new Error("the failed save did not show up")
    },
    off: (admin) => config(admin, "save", "")
  },
  {
    name: "read-only by policy (min-replicas-to-write 1, no replica)",
    reply: /NOREPLICAS/,
    on: (admin) => config(admin, "min-replicas-to-write", "1"),
    off: (admin) => config(admin, "min-replicas-to-write", "0")
  },
  {
    name: "a read-only replica",
    reply: /READONLY/,
    on: async (admin) => {
      await admin.command(["REPLICAOF", "127.0.0.1", String(await freePort())])
    },
    off: (admin) => admin.command(["REPLICAOF", "NO", "ONE"]).then(() => undefined)
  }
]

describe("a database that refuses writes", () => {
  let server: RunningServer
  let admin: Admin
  let relay: RelayClient
  const graph = testGraphName("refused")
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    server = await startServer()
    ;[admin, relay] = await Promise.all([
      connectAdmin(server),
      connectRelayTo(server, { graph, env: { RELAY_RATE_LIMIT: "1000000" }, process: true })
    ])
    Object.assign(
      ids,
      await saveFork(relay, ["which cache", "memcached", "valkey"], { written_by: "tester", session_id: "s" })
    )
  })
  afterAll(async () => {
    await relay?.close()
    await admin?.close()
    await server?.stop()
  })

  const factCount = async () => (await admin.query<{ n: number }>(graph, "MATCH (f:Fact) RETURN count(f) AS n"))[0]?.n

  const timed = async (name: string, args: Record<string, unknown>) => {
    const started = performance.now()
    const result: ToolCallResult = await relay.call(name, args)
    return { result, ms: performance.now() - started }
  }

  const unavailable = (label: string, { ms, result }: { result: ToolCallResult; ms: number }, reply: RegExp) => {
    expect(result.isError, label).toBe(true)
    expect(errorOf(result).code, label).toBe("unavailable")
    expect(result.content[0]?.text).toBe(`unavailable: ${errorOf(result).message}`)
    expect(errorOf(result).message).not.toMatch(reply)
    expect(errorOf(result).message).not.toContain(String(server.port))
    expect(ms, label).toBeLessThan(3000)
  }

  for (const fault of faults) {
    it(`${fault.name}: writes answer unavailable, reads go on, writes resume without a restart`, async () => {
      const pid = relayPid(relay)
      const before = await factCount()
      const logged = relay.stderr().length
      await fault.on(admin, server)
      try {
        unavailable(
          "save",
          await timed("relay_save_fact", { content: `during ${fault.name}`, written_by: "tester", session_id: "s" }),
          fault.reply
        )
        unavailable(
          "child save",
          await timed("relay_save_fact", {
            content: `child during ${fault.name}`,
            written_by: "tester",
            session_id: "s",
            parent_fact_id: ids.root
          }),
          fault.reply
        )
        unavailable(
          "resolve",
          await timed("relay_resolve_conflict", {
            winner_fact_id: ids.b,
            loser_fact_id: ids.a,
            reason: "faster",
            resolved_by: "tester"
          }),
          fault.reply
        )
        expect(relay.stderr().slice(logged)).toMatch(fault.reply)

        const state = await relay.call("relay_get_current_state")
        expect(state.isError, state.content[0]?.text).toBeFalsy()
        expect(outputOf(state).facts).toHaveLength(before!)
        const context = await relay.call("relay_get_context", { fact_id: ids.a })
        expect(outputOf(context).chain?.map((f) => f.id)).toEqual([ids.root, ids.a])
        expect(outputOf(await relay.call("relay_detect_conflicts")).conflicts).toHaveLength(1)
        // the briefing moves the clock fence, which is a write: it may only fail as unavailable
        const briefing = await relay.call("relay_get_briefing", { my_name: "someone" })
        if (briefing.isError === true) expect(errorOf(briefing).code).toBe("unavailable")
      } finally {
        await fault.off(admin)
      }
      expect(await factCount()).toBe(before)
      expect(isAlive(pid)).toBe(true)
      const after = await relay.call("relay_save_fact", {
        content: `after ${fault.name}`,
        written_by: "tester",
        session_id: "s"
      })
      expect(after.isError, after.content[0]?.text).toBeFalsy()
      expect(relayPid(relay)).toBe(pid)
      expect(await factCount()).toBe(before! + 1)
    })
  }

  it("a Relay started while the database refuses writes still reads, answers unavailable to writes, and does not crash", async () => {
    await faults[2]!.on(admin, server)
    const fresh = await connectRelayTo(server, { graph, process: true })
    try {
      const pid = relayPid(fresh)
      const save = await fresh.call("relay_save_fact", {
        content: "from a fresh process",
        written_by: "tester",
        session_id: "s"
      })
      expect(errorOf(save).code).toBe("unavailable")
      // Its schema check on connect is read-only when the indexes exist, so reads work.
      const read = await fresh.call("relay_get_current_state")
      expect(read.isError, read.content[0]?.text).toBeFalsy()
      expect(outputOf(read).facts.length).toBeGreaterThan(0)
      expect(isAlive(pid)).toBe(true)
      await faults[2]!.off(admin)
      const later = await fresh.call("relay_save_fact", {
        content: "from a fresh process, later",
        written_by: "tester",
        session_id: "s"
      })
      expect(later.isError, later.content[0]?.text).toBeFalsy()
    } finally {
      await faults[2]!.off(admin)
      await fresh.close()
    }
  })
})
