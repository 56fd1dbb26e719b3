import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Either, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { FactStore } from "../../src/services/FactStore.js"
import { type RunningServer, startServer } from "../support/falkordbServer.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import {
  type Admin,
  connectAdmin,
  connectRelayTo,
  layerOn,
  repeated,
  runDatabase,
  storedFacts
} from "../support/proof.js"
import { ok } from "../support/runTool.js"
import { testGraphName } from "../support/testLayer.js"
import { type OutputOf, outputOf, type ToolCallResult } from "../support/toolOutputs.js"

const saveArgs = (content: string, extra: Record<string, unknown> = {}) => ({
  content,
  written_by: "racer",
  session_id: "race",
  ...extra
})

/** RELAY_DB_CONNECTIONS' default: the most connections one process holds. */
const poolSize = 8

/** Connections from anything but the admin client itself, as the server lists them now. */
const otherClients = async (admin: Admin) => {
  const me = String(await admin.command(["CLIENT", "ID"]))
  const list = String(await admin.command(["CLIENT", "LIST"]))
  return list.split("\n").filter((l) => l.trim() !== "" && !l.startsWith(`id=${me} `))
}

/**
 * Races against the real FalkorDB. The connection counts use a private server of this file, where
 * nothing else connects, so they are exact: INFO's total_connections_received counts every connect
 * ever made, including ones already closed again.
 */
describe("concurrency", () => {
  let server: RunningServer
  let admin: Admin
  let runAdmin: Admin
  const graphs: Array<string> = []

  beforeAll(async () => {
    server = await startServer()
    ;[admin, runAdmin] = await Promise.all([connectAdmin(server), connectAdmin()])
  })
  afterAll(async () => {
    for (const g of graphs) await runAdmin?.command(["GRAPH.DELETE", g]).catch(() => undefined)
    await Promise.all([admin?.close(), runAdmin?.close()])
    await server?.stop()
  })

  it.scopedLive("40 parallel writes: all land, each once, on no more connections than the pool holds", () =>
    Effect.gen(function*() {
      const graph = testGraphName("par40g")
      const context = yield* Layer.build(layerOn(server, graph))
      const before = yield* Effect.promise(() => admin.totalConnections())
      const results = yield* Effect.forEach(
        Array.from({ length: 40 }, (_, i) => i),
        (i) => ok("relay_save_fact", saveArgs(`landed write ${i}`)),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(context))
      // The pool (RELAY_DB_CONNECTIONS, default 8) bounds them: 40 calls never open 40 connections.
      const made = (yield* Effect.promise(() => admin.totalConnections())) - before
      expect(made).toBeGreaterThanOrEqual(1)
      expect(made).toBeLessThanOrEqual(poolSize)
      const stored = yield* Effect.promise(() => storedFacts(admin, graph))
      expect(stored).toHaveLength(40)
      const byId = new Map(stored.map((f) => [f.id, f]))
      expect(byId.size).toBe(40)
      for (const r of results) expect(byId.get(r.fact.id)?.content).toBe(r.fact.content)
      expect(repeated(stored.map((f) => f.content))).toEqual([])
      expect(repeated(stored.map((f) => f.created_at))).toEqual([])
    }))

  it("25 simultaneous calls on a process just started: all succeed, on no more connections than the pool holds", async () => {
    const graph = testGraphName("cold25")
    expect(await otherClients(admin)).toEqual([])
    const before = await admin.totalConnections()
    // Relay connects at start (src/mcp/warmUp.ts); calls sent at once wait for the pool's connections.
    const relay = await connectRelayTo(server, { graph })
    try {
      const calls = Array.from({ length: 25 }, (_, i) =>
        i % 5 === 0 ?
          relay.call("relay_get_current_state") :
          i % 5 === 1 ?
          relay.call("relay_get_clusters") :
          relay.call("relay_save_fact", saveArgs(`cold start write ${i}`)))
      const results = await Promise.all(calls)
      for (const r of results) expect(r.isError, r.content[0]?.text).toBeFalsy()
      const made = (await admin.totalConnections()) - before
      expect(made).toBeGreaterThanOrEqual(1)
      expect(made).toBeLessThanOrEqual(poolSize)
      expect((await otherClients(admin)).length).toBeLessThanOrEqual(poolSize)
      const stored = await storedFacts(admin, graph)
      expect(stored.map((f) => f.content).sort()).toEqual(
        Array.from({ length: 25 }, (_, i) => i).filter((i) => i % 5 > 1).map((i) => `cold start write ${i}`).sort()
      )
    } finally {
      await relay.close()
      await admin.command(["GRAPH.DELETE", graph]).catch(() => undefined)
    }
  })

  /** Two independent Relay stacks (two connections) on one graph of the run's database. */
  const twoStacks = (label: string) =>
    Effect.gen(function*() {
      const graph = testGraphName(label)
      graphs.push(graph)
      const a = yield* Layer.build(layerOn(runDatabase(), graph))
      const b = yield* Layer.build(layerOn(runDatabase(), graph))
      return { graph, a, b }
    })

  it.scopedLive("12 different siblings at once: one save sees no fork, the k-th to land sees the k-1 before it", () =>
    Effect.gen(function*() {
      const { a, b } = yield* twoStacks("siblings12")
      const root = yield* ok("relay_save_fact", saveArgs("which CI runner")).pipe(Effect.provide(a))
      const results = yield* Effect.forEach(
        Array.from({ length: 12 }, (_, i) => i),
        (i) =>
          ok("relay_save_fact", saveArgs(`runner option ${i}`, { parent_fact_id: root.fact.id })).pipe(
            Effect.provide(i % 2 === 0 ? a : b)
          ),
        { concurrency: "unbounded" }
      )
      expect(results.filter((r) => r.fork === null)).toHaveLength(1)
      const landed = [...results].sort((p, q) => p.fact.created_at.localeCompare(q.fact.created_at))
      expect(repeated(landed.map((r) => r.fact.created_at))).toEqual([])
      landed.forEach((r, k) => {
        const siblings = r.fork === null ? [] : r.fork.siblings.map((s) => s.id)
        expect(siblings).toEqual(landed.slice(0, k).map((e) => e.fact.id))
        expect(r.duplicate_of).toBeNull()
      })
    }))

  it("8 server processes writing 100 facts each at once: 800 facts, none lost, none twice", async () => {
    const graph = testGraphName("procs8")
    graphs.push(graph)
    const relays: Array<RelayClient> = await Promise.all(
      Array.from(
        { length: 8 },
        (_, p) => connectRelay({ graph, name: `writer-${p}`, env: { RELAY_RATE_LIMIT: "1000" }, process: true })
      )
    )
    try {
      // every process writes its 100 facts as 10 streams of 10 at the same time as all the others: 80 saves
      // in flight at any moment. (All 800 in one burst would queue past the 2 s query timeout on a busy
      // 2-core machine, and Relay would rightly answer unavailable.)
      const sent = relays.flatMap((relay, p) =>
        Array.from({ length: 100 }, (_, i) => ({ p, content: `process ${p} fact ${i}`, relay }))
      )
      const replies: Array<ToolCallResult<OutputOf<"relay_save_fact">>> = new Array(sent.length)
      let retried = 0
      const started = performance.now()
      await Promise.all(relays.flatMap((_, p) =>
        Array.from({ length: 10 }, async (_, stream) => {
          for (let i = p * 100 + stream; i < (p + 1) * 100; i += 10) {
            const { content, relay } = sent[i]!
            const args = { content, written_by: `writer-${p}`, session_id: `proc-${p}`, request_id: `procs8-${i}` }
            // As the contract tells a client: a write answered `unavailable` (queued past its budget on
            // a busy machine) may have landed, so it is sent again with the same request_id, which
            // returns what landed instead of writing it twice. Lost or doubled facts still fail below.
            let reply = await relay.call("relay_save_fact", args)
            for (
              let retry = 0;
              retry < 5 && reply.isError === true && /^unavailable/.test(reply.content[0]?.text ?? "");
              retry++
            ) {
              retried++
              reply = await relay.call("relay_save_fact", args)
            }
            replies[i] = reply
          }
        })
      ))
      const elapsed = performance.now() - started
      const failures = replies.filter((r) => r.isError === true).length
      console.log(`8 processes: 800 saves in ${Math.round(elapsed)} ms, ${retried} sent again, ${failures} failed`)
      if (failures > 0) {
        console.log(
          relays.map((r) => r.stderr().split("\n").filter((l) => /level=(WARN|ERROR)/.test(l)).slice(0, 3).join("\n"))
            .join("\n")
        )
      }
      for (const r of replies) expect(r.isError, r.content[0]?.text).toBeFalsy()
      const acked = replies.map((r, i) => ({ id: outputOf(r).fact.id, ...sent[i]! }))

      const stored = await storedFacts(runAdmin, graph)
      expect(stored).toHaveLength(800)
      expect(repeated(stored.map((f) => f.id))).toEqual([])
      expect(repeated(stored.map((f) => f.content))).toEqual([])
      expect(repeated(stored.map((f) => f.created_at))).toEqual([])
      const byId = new Map(stored.map((f) => [f.id, f]))
      for (const w of acked) {
        expect(byId.get(w.id)).toMatchObject({
          content: w.content,
          written_by: `writer-${w.p}`,
          session_id: `proc-${w.p}`
        })
      }
    } finally {
      await Promise.all(relays.map((r) => r.close()))
    }
  })

  it.scopedLive("the unique constraint holds against a forced duplicate id", () =>
    Effect.gen(function*() {
      const graph = testGraphName("unique")
      const context = yield* Layer.build(layerOn(runDatabase(), graph))
      const store = Context.get(context, FactStore)
      const id = randomUUID()
      const fact = { id, writtenBy: "racer", sessionId: "u", parentId: null }
      const first = yield* store.save({ ...fact, content: "the first write of this id" })
      // The same id again (a retried request_id) with the same content answers the first fact; with
      // other content it is refused, and nothing is written.
      expect((yield* store.save({ ...fact, content: "the first write of this id" })).fact).toEqual(first.fact)
      const second = yield* Effect.flip(store.save({ ...fact, content: "a second write with the same id" }))
      expect(second._tag).toBe("InvalidInput")
      const raw = yield* Effect.promise(() =>
        runAdmin.query(graph, "CREATE (:Fact {id: $id, content: 'raw duplicate'})", { id }).then(
          () => "accepted",
          (e: Error) => e.message
        )
      )
      expect(raw).toMatch(/unique constraint/i)
      const stored = yield* Effect.promise(() => storedFacts(runAdmin, graph))
      expect(stored.map((f) => [f.id, f.content])).toEqual([[id, "the first write of this id"]])
      // and in a race: the same id saved 10 times at once is one node
      const racedId = randomUUID()
      const races = yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (i) =>
        Effect.either(store.save({ ...fact, id: racedId, content: `race ${i}` })), { concurrency: "unbounded" })
      expect(races.filter(Either.isRight)).toHaveLength(1)
      expect(
        races.filter(Either.isLeft).map((e) =>
          e.left._tag
        )
      ).toEqual(Array.from({ length: 9 }, () => "InvalidInput"))
      const raced = yield* Effect.promise(() =>
        runAdmin.query<{ n: number }>(graph, "MATCH (f:Fact {id: $id}) RETURN count(f) AS n", { id: racedId })
      )
      expect(raced).toEqual([{ n: 1 }])
    }))
})
