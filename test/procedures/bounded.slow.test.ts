import { afterAll, beforeAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { ToolServices } from "../../src/mcp/mcpHandlers.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { isFailure, readProcedure } from "../../src/studio/studioProcedure.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { withRawDatabase } from "../support/rawDatabase.js"
import { ok } from "../support/runTool.js"
import { relayTestLayer, testGraphName } from "../support/testLayer.js"

/**
 * Issue 44's big shapes and races: a procedure with 100,000 runs answers its counts and a page of
 * runs (to a tool and to the studio) by exact lookups (the profile's largest operator handles a page's rows, not the runs), and
 * four server processes recording runs of one procedure at once lose no count.
 */
const mostRecords = (profile: ReadonlyArray<string>) =>
  Math.max(...profile.map((line) => Number(/Records produced: (\d+)/.exec(line)?.[1] ?? 0)))

/** GRAPH.PROFILE of a statement, its parameters given in the CYPHER prefix (the client's profile takes none). */
const profileOf = (graph: string, cypher: string, params: Record<string, unknown>) =>
  Effect.promise(() =>
    withRawDatabase((db) =>
      db.selectGraph(graph).profile(
        `CYPHER ${Object.entries(params).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" ")} ${cypher}`
      )
    )
  )
    .pipe(Effect.map((p) => (p as unknown as ReadonlyArray<string>).map(String)))

layer(relayTestLayer("procedures_big"))("hostile shapes", (it) => {
  it.effect(
    "a procedure with 100,000 runs: counts kept on write, pages of runs by exact lookups",
    () =>
      Effect.gen(function*() {
        const graph = (yield* GraphDatabase).graphName
        const p = yield* ok("relay_save_fact", {
          content: "reindex the search cluster",
          steps: ["pause writes", "reindex", "resume writes"],
          written_by: "ann",
          session_id: "s"
        })
        const runs = 100_000
        // Made as Relay writes them (slots 1..n, counts on the node), in statements of 20,000.
        for (let lo = 1; lo <= runs; lo += 20_000) {
          yield* Effect.promise(() =>
            withRawDatabase((db) =>
              db.selectGraph(graph).query(
                `MATCH (p:Fact {id: $id}) UNWIND range($lo, $hi) AS n ` +
                  `CREATE (:Run {id: $id + ':' + toString(n), slot: $id + '#' + toString(n), procedure_id: $id, n: n, ` +
                  `outcome: CASE WHEN n % 4 = 0 THEN 'failure' ELSE 'success' END, failed_step: null, note: null, ` +
                  `ran_by: 'bot', created_at: 1780000000000 + n, task_id: null})-[:RAN {created_at: 1780000000000 + n}]->(p)`,
                { params: { id: p.fact.id, lo, hi: Math.min(lo + 19_999, runs) } }
              )
            )
          )
        }
        yield* Effect.promise(() =>
          withRawDatabase((db) =>
            db.selectGraph(graph).query(`MATCH (p:Fact {id: $id}) SET p.runs_ok = 75000, p.runs_failed = 25000`, {
              params: { id: p.fact.id }
            })
          )
        )
        const run = yield* ok("relay_record_run", {
          procedure_id: p.fact.id,
          outcome: "failure",
          failed_step: 2,
          note: "disk full",
          ran_by: "bob"
        })
        expect(run.runs).toEqual({ success: 75_000, failure: 25_001, rate: 0.75 })
        const first = yield* ok("relay_find_procedure", { procedure_id: p.fact.id })
        expect(first.runs?.map((r) => r.note ?? r.id.slice(-6))).toEqual([
          "disk full",
          ...Array.from({ length: 19 }, (_, k) => `:${100_000 - k}`.slice(-6))
        ])
        const second = yield* ok("relay_find_procedure", { procedure_id: p.fact.id, cursor: first.next_cursor! })
        expect(second.runs?.[0]?.id).toBe(`${p.fact.id}:99981`)
        // The studio's answer: the same bounded page, saying how many runs it leaves out.
        const workspace = {
          runtime: yield* Effect.runtime<ToolServices>(),
          name: "local",
          stillValid: Effect.succeed(true),
          release: Effect.void
        }
        const studio = yield* readProcedure(workspace, p.fact.id, undefined)
        if (isFailure(studio)) throw new Error(studio.content[0]?.text)
        expect([studio.runs.length, studio.runs_more, studio.earlier_more]).toEqual([20, 100_001 - 20, 0])
        const further = yield* readProcedure(workspace, p.fact.id, studio.next_cursor!)
        if (isFailure(further)) throw new Error(further.content[0]?.text)
        expect([further.runs[0]?.id, further.runs_more]).toEqual([`${p.fact.id}:99981`, 100_001 - 40])
        // The statements' largest operators handle a page, never the runs.
        const slots = Array.from({ length: 20 }, (_, k) => `${p.fact.id}#${100_001 - k}`)
        expect(
          mostRecords(
            yield* profileOf(graph, "UNWIND $slots AS sl MATCH (r:Run {slot: sl}) RETURN r.n AS n ORDER BY n DESC", {
              slots
            })
          )
        )
          .toBeLessThanOrEqual(20)
        const recorded = yield* profileOf(
          graph,
          `MATCH (p:Fact {id: $procedure}) OPTIONAL MATCH (old:Run {id: $id}) RETURN p.runs_ok + p.runs_failed AS n, old IS NULL AS fresh`,
          { procedure: p.fact.id, id: randomUUID() }
        )
        expect(mostRecords(recorded)).toBeLessThanOrEqual(1)
      }),
    { timeout: 120_000 }
  )
})

describe("four processes record runs of one procedure at once", () => {
  const graph = testGraphName("procedure_race")
  const clients: Array<RelayClient> = []
  beforeAll(async () => {
    for (let i = 0; i < 4; i++) clients.push(await connectRelay({ graph, name: `racer-${i}`, process: true }))
  }, 60_000)
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
    await withRawDatabase((db) => db.selectGraph(graph).delete().catch(() => undefined))
  })

  it("no count lost, none doubled by a retry, every run its own place", async () => {
    const saved = await clients[0]!.call("relay_save_fact", {
      content: "restart the cache",
      steps: ["drain", "restart"],
      written_by: "ann",
      session_id: "s"
    })
    if (saved.isError === true) throw new Error("save failed")
    const id = saved.structuredContent.fact.id
    const perProcess = 25
    await Promise.all(
      clients.map((c, k) =>
        Promise.all(Array.from({ length: perProcess + 5 }, (_, i) =>
          c.call("relay_record_run", {
            procedure_id: id,
            // The last five resend earlier calls whole (a client's retries), so whichever of the two
            // lands first, the other is the same run: counted once, and neither may fail.
            outcome: (i % perProcess) % 3 === 0 ? "failure" : "success",
            ran_by: `agent-${k}`,
            request_id: `run-${i % perProcess}`
          }).then((r) => r.isError === true ? Promise.reject(new Error(JSON.stringify(r.content))) : r)))
      )
    )
    const found = await clients[3]!.call("relay_find_procedure", { procedure_id: id })
    if (found.isError === true) throw new Error("find failed")
    const runs = found.structuredContent.procedures[0]!.runs
    const failures = 4 * Array.from({ length: perProcess }, (_, i) => i).filter((i) => i % 3 === 0).length
    expect(runs).toMatchObject({ success: 4 * perProcess - failures, failure: failures })
    const places = await withRawDatabase((db) =>
      db.selectGraph(graph).query<{ n: number }>(`MATCH (r:Run {procedure_id: $id}) RETURN r.n AS n ORDER BY n`, {
        params: { id }
      })
    )
    expect((places.data ?? []).map((r) => r.n)).toEqual(Array.from({ length: 4 * perProcess }, (_, i) => i + 1))
  }, 120_000)
})
