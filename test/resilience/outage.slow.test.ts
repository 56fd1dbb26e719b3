import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { FalkorDB } from "falkordb"
import { type RunningServer, startServer } from "../support/falkordbServer.js"
import { resolveArgs, saveFork } from "../support/fork.js"
import { connectRelay, type RelayClient, type ToolCallResult } from "../support/mcpClient.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"
import { disposeServer } from "./privateDatabase.js"

/**
 * A running Relay (dist/server.js over stdio) whose FalkorDB is killed, restarted and paused under it.
 * The contract: every tool answers `unavailable` within 3 s, the process stays up, the next call after
 * the database is back succeeds without restarting Relay, and no reply says where the database lives.
 */
let server: RunningServer
let relay: RelayClient
let ids = { root: "", a: "", b: "" }
/** Relay's pool of connections here: a leak would show as more clients than this. */
const poolSize = 2

beforeAll(async () => {
  server = await startServer({ persist: true })
  relay = await connectRelay({
    env: {
      FALKORDB_HOST: server.host,
      FALKORDB_PORT: String(server.port),
      FALKORDB_PASSWORD: server.password,
      RELAY_DB_CONNECTIONS: String(poolSize)
    },
    process: true
  })
  ids = await saveFork(relay, ["Queue jobs in Redis", "Use BullMQ", "Use a plain list"], {
    written_by: "a",
    session_id: "outage"
  })
})

afterAll(async () => {
  await relay?.close()
  if (server !== undefined) await disposeServer(server)
})

/** One valid call per tool, against facts that exist. */
const everyTool = (): ReadonlyArray<readonly [string, Record<string, unknown>]> => [
  ["relay_save_fact", { content: "Written while the database is down", written_by: "a", session_id: "outage" }],
  ["relay_get_context", { fact_id: ids.a }],
  ["relay_get_impact", { fact_id: ids.root }],
  ["relay_get_current_state", {}],
  ["relay_detect_conflicts", {}],
  ["relay_resolve_conflict", { winner_fact_id: ids.a, loser_fact_id: ids.b, reason: "simpler", resolved_by: "a" }],
  ["relay_get_briefing", { my_name: "b" }],
  ["relay_get_important_facts", {}],
  ["relay_get_clusters", {}],
  ["relay_search", { query: "outage" }]
]

const timed = async <N extends string>(name: N, args: Record<string, unknown>) => {
  const started = performance.now()
  const result = await relay.call(name, args)
  return { name, result, millis: performance.now() - started }
}

/** What no reply may carry: where the database is, its secret, stacks, driver text, Cypher. */
const leaks = (reply: ToolCallResult): Array<string> => {
  const text = JSON.stringify([reply.content, reply.structuredContent])
  const found: Array<string> = []
  for (
    const needle of [
      server.host,
      String(server.port),
      server.password,
      "localhost",
      "ECONNREFUSED",
      "ClientClosedError",
      "ErrorReply",
      "Redis",
      "redis",
      "Falkor",
      "Socket",
      "timed out"
    ]
  ) {
    if (text.includes(needle)) found.push(needle)
  }
  for (
    const pattern of [
      /\bat \S+ \(/,
      /\bat (file|node):/,
      /\.ts:\d/,
      /\.js:\d/,
      /\.ts\b/,
      /\.js\b/,
      /\bMATCH\b/,
      /\bMERGE\b/,
      /\bCREATE\b/,
      /\bRETURN\b/,
      /Error\b/
    ]
  ) {
    if (pattern.test(text)) found.push(String(pattern))
  }
  return found
}

const expectUnavailable = (calls: ReadonlyArray<{ name: string; result: ToolCallResult; millis: number }>) => {
  expect(calls.map((c) => c.name).sort()).toEqual(everyTool().map(([n]) => n).sort())
  for (const { millis, name, result } of calls) {
    expect(result.isError, name).toBe(true)
    expect(errorOf(result).code, name).toBe("unavailable")
    expect(result.content[0]?.text, name).toBe(`unavailable: ${errorOf(result).message}`)
    expect(leaks(result), name).toEqual([])
    expect(millis, name).toBeLessThan(3000)
  }
}

const relayAlive = () => {
  const pid = (relay.client.transport as { pid?: number | null } | undefined)?.pid
  expect(typeof pid).toBe("number")
  expect(() => process.kill(pid!, 0)).not.toThrow()
}

/** How many clients the server has, not counting the one asking. */
const otherClients = async () => {
  const db = await FalkorDB.connect({ socket: { host: server.host, port: server.port }, password: server.password })
  try {
    const client = await db.connection
    const list = String(await client.sendCommand(["CLIENT", "LIST"]))
    return list.trim().split("\n").length - 1
  } finally {
    await db.close()
  }
}

const facts = async () => {
  const r = await relay.call("relay_get_current_state", { limit: 100 })
  expect(r.isError, r.content[0]?.text).toBeUndefined()
  return outputOf(r).facts.map((f) => f.id)
}

describe("Relay with its database killed or hung", () => {
  it("answers unavailable on every tool within 3 s when the server is killed, and recovers without a restart", async () => {
    await server.kill()
    const calls = []
    for (const [name, args] of everyTool()) calls.push(await timed(name, args))
    expectUnavailable(calls)
    relayAlive()
    // A second round: still clean, still fast (no connection left half-made).
    expectUnavailable(await Promise.all(everyTool().map(([n, a]) => timed(n, a))))

    await server.restart()
    const after = await facts()
    expect(after).toEqual(expect.arrayContaining([ids.root, ids.a, ids.b]))
    // Nothing written while down: the failed save left no fact.
    expect(after).toHaveLength(3)
    relayAlive()
    // The details went to the log, and the log does not hold the password either.
    const log = relay.stderr()
    expect(log).toMatch(/ECONNREFUSED|ClientClosedError|Socket closed/)
    expect(log).not.toContain(server.password)
  })

  it("a call made while the server restarts succeeds", async () => {
    await server.kill()
    const [reply] = await Promise.all([timed("relay_get_context", { fact_id: ids.b }), server.restart()])
    expect(reply.result.isError, reply.result.content[0]?.text).toBeUndefined()
    expect(outputOf(reply.result).chain.map((f) => f.id)).toEqual([ids.root, ids.b])
    expect(reply.millis).toBeLessThan(2000)
  })

  it("answers unavailable within 3 s when the server hangs (SIGSTOP), and recovers when it resumes", async () => {
    const pid = server.process.pid!
    process.kill(pid, "SIGSTOP")
    try {
      expectUnavailable(await Promise.all(everyTool().map(([n, a]) => timed(n, a))))
      relayAlive()
    } finally {
      process.kill(pid, "SIGCONT")
    }
    expect(relay.stderr()).toMatch(/timed out/)
    const after = await facts()
    expect(after).toEqual(expect.arrayContaining([ids.root, ids.a, ids.b]))
    // Whatever the paused server received before it stopped may land when it resumes (the save
    // was sent before the timeout); what matters is that nothing landed twice.
    expect(new Set(after).size).toBe(after.length)
    // Connects given up on while the server was paused finish when it resumes; Relay closes them
    // instead of leaking them, so no more than its pool of connections stays.
    let clients = await otherClients()
    for (let i = 0; i < 40 && clients > poolSize; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      clients = await otherClients()
    }
    expect(clients).toBeGreaterThanOrEqual(1)
    expect(clients).toBeLessThanOrEqual(poolSize)
    const resolved = await relay.call("relay_resolve_conflict", resolveArgs(ids.a, ids.b, "simpler", "a"))
    expect(resolved.isError).toBeUndefined()
  })
})
