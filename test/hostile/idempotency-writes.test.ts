import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { setTimeout as sleep } from "node:timers/promises"
import { disposeServer } from "../resilience/privateDatabase.js"
import { type RunningServer, startServer } from "../support/falkordbServer.js"
import { connectRelay, type RelayClient, type ToolCallResult } from "../support/mcpClient.js"
import { type Admin, connectAdmin, connectRelayTo } from "../support/proof.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

/**
 * Issue 9, item 5: a save or resolve may land even though it answered `unavailable` (a paused
 * server, a lost reply), and a plain retry then wrote the fact twice. With a request_id the client
 * retries safely: the retry answers the write that landed, and a request_id reused for something
 * else is refused with nothing written.
 */
let relay: RelayClient
let admin: Admin

beforeAll(async () => {
  relay = await connectRelay()
  admin = await connectAdmin()
})

afterAll(async () => {
  await relay?.close()
  await admin?.close()
})

const ok = <A>(r: ToolCallResult<A>) => {
  expect(r.isError, r.content[0]?.text).toBeUndefined()
  return outputOf(r)
}

const refused = (r: ToolCallResult, code: string) => {
  expect(r.isError).toBe(true)
  expect(errorOf(r).code).toBe(code)
  return errorOf(r).message
}

const countIn = async (graph: string, cypher: string, params: Record<string, unknown> = {}) =>
  Number((await admin.query<{ n: number }>(graph, cypher, params))[0]?.n ?? 0)

const factsSaying = (graph: string, content: string) =>
  countIn(graph, "MATCH (f:Fact {content: $content}) RETURN count(f) AS n", { content })

/** Everything a refused call must leave as it was. */
const footprint = async (graph: string) => ({
  facts: await countIn(graph, "MATCH (f:Fact) RETURN count(f) AS n"),
  buildsOn: await countIn(graph, "MATCH ()-[r:BUILDS_ON]->() RETURN count(r) AS n"),
  supersedes: await countIn(graph, "MATCH ()-[r:SUPERSEDES]->() RETURN count(r) AS n"),
  forkMarks: await countIn(graph, "MATCH (m:ForkMark) RETURN count(m) AS n"),
  clock:
    (await admin.query<{ last: number | null }>(graph, "MATCH (:RelayClock)-[c:CLOCK]->() RETURN c.last AS last"))[0]
      ?.last ??
      null
})

const save = (args: Record<string, unknown>) =>
  relay.call("relay_save_fact", { written_by: "claude", session_id: "idem", ...args })

describe("request_id on relay_save_fact", () => {
  it("a save sent twice with one request_id is one fact, and the retry answers that fact", async () => {
    const root = ok(await save({ content: "Cache sessions in Valkey", request_id: "req-root-1" })).fact
    const again = ok(await save({ content: "Cache sessions in Valkey", request_id: "req-root-1" })).fact
    expect(again).toEqual(root)
    expect(await factsSaying(relay.graph, "Cache sessions in Valkey")).toBe(1)

    // Under a parent: one fact, one BUILDS_ON edge, the same fork picture both times.
    const other = ok(await save({ content: "Cache sessions in memory", parent_fact_id: root.id })).fact
    const child = {
      content: "Cache sessions in Valkey with a 1 h TTL",
      parent_fact_id: root.id,
      request_id: "9b3e0c1a-child"
    }
    const first = ok(await save(child))
    const second = ok(await save(child))
    expect(second).toEqual(first)
    expect(first.fork!.siblings.map((s: { id: string }) => s.id)).toEqual([other.id])
    expect(await factsSaying(relay.graph, child.content)).toBe(1)
    expect(
      await countIn(relay.graph, "MATCH (:Fact {id: $id})-[r:BUILDS_ON]->() RETURN count(r) AS n", {
        id: first.fact.id
      })
    )
      .toBe(1)
  })

  it("the same request_id from two assistants makes two facts (the id is per writer)", async () => {
    const a = ok(await save({ content: "Ship on Fridays", written_by: "cursor", request_id: "shared-1" })).fact
    const b = ok(await save({ content: "Ship on Fridays", written_by: "claude", request_id: "shared-1" })).fact
    expect(a.id).not.toBe(b.id)
    expect(await factsSaying(relay.graph, "Ship on Fridays")).toBe(2)
  })

  it("a request_id reused with other content, session or parent is refused, naming request_id, with nothing written", async () => {
    const root = ok(await save({ content: "Use Postgres 16", request_id: "reuse-root" })).fact
    const parent = ok(await save({ content: "Use Postgres 17" })).fact
    const child =
      ok(await save({ content: "Enable pg_stat_statements", parent_fact_id: root.id, request_id: "reuse-child" }))
        .fact
    const before = await footprint(relay.graph)
    const secret = "a different text that must not come back"
    for (
      const args of [
        { content: secret, request_id: "reuse-root" },
        { content: "Use Postgres 16", session_id: "another-session", request_id: "reuse-root" },
        { content: "Use Postgres 16", parent_fact_id: parent.id, request_id: "reuse-root" },
        { content: "Enable pg_stat_statements", request_id: "reuse-child" },
        { content: "Enable pg_stat_statements", parent_fact_id: parent.id, request_id: "reuse-child" },
        { content: secret, parent_fact_id: root.id, request_id: "reuse-child" }
      ]
    ) {
      const message = refused(await save(args), "invalid_input")
      expect(message).toMatch(/^request_id: /)
      expect(message).not.toContain(secret)
      expect(message).not.toContain(root.id)
    }
    expect(await footprint(relay.graph)).toEqual(before)
    // The landed facts still answer their own retries.
    expect(ok(await save({ content: "Use Postgres 16", request_id: "reuse-root" })).fact).toEqual(root)
    expect(
      ok(await save({ content: "Enable pg_stat_statements", parent_fact_id: root.id, request_id: "reuse-child" })).fact
    )
      .toEqual(child)
  })

  it("a request_id outside its pattern is refused without echoing it", async () => {
    for (const bad of ["", "has space", "x".repeat(129), "-leading-dash", "émoji🙂"]) {
      const message = refused(await save({ content: "Never stored", request_id: bad }), "invalid_input")
      expect(message).toMatch(/^request_id: must be 1-128 characters/)
      if (bad.length > 0) expect(message).not.toContain(bad)
    }
    expect(await factsSaying(relay.graph, "Never stored")).toBe(0)
  })
})

describe("request_id on relay_resolve_conflict", () => {
  it("a resolve retried with its request_id answers already_resolved: false both times; another call true", async () => {
    const root = ok(await save({ content: "Pick a queue" })).fact
    const a = ok(await save({ content: "Use SQS", parent_fact_id: root.id })).fact
    const b = ok(await save({ content: "Use RabbitMQ", parent_fact_id: root.id })).fact
    const resolve = (args: Record<string, unknown>) =>
      relay.call("relay_resolve_conflict", {
        winner_fact_id: a.id,
        loser_fact_id: b.id,
        reason: "managed",
        resolved_by: "claude",
        ...args
      })
    const first = ok(await resolve({ request_id: "resolve-1" }))
    const retry = ok(await resolve({ request_id: "resolve-1" }))
    expect(first.already_resolved).toBe(false)
    expect(retry.already_resolved).toBe(false)
    expect(retry.created_at).toBe(first.created_at)
    // Another caller (or the same one with another request_id) learns it was already settled.
    expect(ok(await resolve({ request_id: "resolve-2" })).already_resolved).toBe(true)
    expect(ok(await resolve({})).already_resolved).toBe(true)
    // The same request_id from another assistant is another call.
    expect(ok(await resolve({ request_id: "resolve-1", resolved_by: "cursor" })).already_resolved).toBe(true)

    const before = await footprint(relay.graph)
    const message = refused(await resolve({ request_id: "resolve-1", reason: "cheaper after all" }), "invalid_input")
    expect(message).toMatch(/^request_id: /)
    expect(message).not.toContain("cheaper")
    expect(await footprint(relay.graph)).toEqual(before)
    expect(await countIn(relay.graph, "MATCH ()-[r:SUPERSEDES]->() RETURN count(r) AS n")).toBe(1)
  })
})

describe("a write that landed though it answered unavailable", () => {
  let server: RunningServer | undefined
  let paused: RelayClient | undefined
  let privateAdmin: Admin | undefined
  afterAll(async () => {
    await paused?.close()
    await privateAdmin?.close()
    if (server !== undefined) await disposeServer(server)
  })

  it("a save sent to a paused server answers unavailable, lands when it resumes, and its retry returns it once", async () => {
    server = await startServer({ persist: true })
    const relayOn = await connectRelayTo(server)
    paused = relayOn
    privateAdmin = await connectAdmin(server)
    const db = privateAdmin
    // Connected before the pause, so the save is written to a live socket the paused server buffers;
    // the writer's name known before it too (its first use records it: policies/agentNames.ts), so
    // the save is the statement in flight.
    ok(await relayOn.call("relay_get_briefing", { my_name: "claude" }))
    const args = {
      content: "Rotate the signing key monthly",
      written_by: "claude",
      session_id: "pause",
      request_id: "pause-1"
    }

    const pid = server.process.pid!
    process.kill(pid, "SIGSTOP")
    let write: ToolCallResult
    let read: ToolCallResult
    try {
      ;[write, read] = await Promise.all([
        relayOn.call("relay_save_fact", args),
        relayOn.call("relay_get_current_state", {})
      ])
    } finally {
      process.kill(pid, "SIGCONT")
    }
    const writeMessage = refused(write, "unavailable")
    expect(writeMessage).toMatch(/may still have landed/)
    expect(writeMessage).toMatch(/same request_id/)
    expect(refused(read, "unavailable")).toBe("the memory database is unavailable right now; try again shortly")

    // It did land, after the answer.
    const landed = async () =>
      Number(
        (await db.query<{ n: number }>(relayOn.graph, "MATCH (f:Fact {content: $c}) RETURN count(f) AS n", {
          c: args.content
        }))[0]?.n ?? 0
      )
    const deadline = performance.now() + 10_000
    while (await landed() === 0 && performance.now() < deadline) await sleep(50)
    expect(await landed()).toBe(1)

    const retried = ok(await relayOn.call("relay_save_fact", args)).fact
    const stored = await db.query<{ id: string }>(relayOn.graph, "MATCH (f:Fact {content: $c}) RETURN f.id AS id", {
      c: args.content
    })
    expect(stored).toEqual([{ id: retried.id }])
  })
})
