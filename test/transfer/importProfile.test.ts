import { expect, layer } from "@effect/vitest"
import { Effect, type Schema, TestClock } from "effect"
import { FalkorDB } from "falkordb"
import { inject } from "vitest"
import { counterId, memoryFile } from "../../bench/memoryFile.js"
import { factBatchSize } from "../../src/layers/transfer/importRecords.js"
import { importText } from "../../src/layers/transfer/transferText.js"
import { type CypherParams, GraphDatabase, type GraphDatabaseShape } from "../../src/services/GraphDatabase.js"
import { inlineParams } from "../support/cypherLiteral.js"
import { withDatabase } from "../support/failingOnce.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * Issue 40: every statement an import sends reads rows in proportion to its batch, never to the
 * graph. The file ends with a hostile shape (wide parents, each with a few choices among many
 * kind-less children, and a long chain) imported on top of a graph already larger than the bound,
 * and each statement of that part runs under GRAPH.PROFILE (below): no operator of any plan may produce more records than a few batches' worth.
 * A scan of every fact, or of every fact once per parent, produces at least the graph.
 */
const now = Date.parse("2026-06-01T00:00:00.000Z")
/** No operator produces more: a batch's facts, their parents and their edges, each a few times over. */
const bound = 4 * factBatchSize

/** The memory above (filler), then wide parents and a long chain, stamped after it. */
const hostileFile = () => {
  const filler = memoryFile({ threads: 22, perThread: 50 })
  const lines = [...filler.lines]
  let at = Date.parse("2026-03-01T00:00:00.000Z")
  let next = 2_000_000
  const fact = (parent: string | null, content: string, kind?: "choice") => {
    const id = counterId(next++)
    lines.push(JSON.stringify({
      kind: "fact",
      id,
      created_at: new Date(at++).toISOString(),
      written_by: `hostile-${next % 3}`,
      session_id: "hostile",
      parent_id: parent,
      content,
      ...(kind === undefined ? {} : { fact_kind: kind })
    }))
    return id
  }
  for (let w = 0; w < 3; w++) {
    const parent = fact(null, `wide parent ${w}: where the queue lives`)
    for (let k = 0; k < 80; k++) {
      fact(
        parent,
        k % 12 === 0 ? `wide ${w} choice ${k}: keep the queue in valkey streams` : `wide ${w} child ${k}: a note`,
        k % 12 === 0 ? "choice" : undefined
      )
    }
  }
  let parent: string | null = null
  for (let d = 0; d < 400; d++) parent = fact(parent, `chain step ${d}: the link holds`)
  return { text: `${lines.join("\n")}\n`, fillerFacts: filler.facts, facts: filler.facts + 3 * 81 + 400 }
}

layer(relayTestLayer("import_profile"), { timeout: 60_000 })("the import's statements under PROFILE", (it) => {
  it.scoped("read rows in proportion to the batch, never to the graph, on wide parents and a long chain", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(now)
      const db = yield* GraphDatabase
      const { facts, fillerFacts, text } = hostileFile()
      expect(fillerFacts).toBeGreaterThan(bound)
      const { host, password, port } = inject("falkordb")
      const raw = yield* Effect.acquireRelease(
        Effect.promise(() => FalkorDB.connect({ socket: { host, port }, password })),
        (c) => Effect.promise(() => c.close())
      )
      let written = 0
      const seen = new Map<string, number>()
      const plans: Array<{ readonly q: string; readonly most: number; readonly plan: string }> = []
      /**
       * GRAPH.PROFILE runs the statement: a read as well as itself, a write whose rows the import
       * ignores (no Schema given) instead of itself, so its effects are the import's own. (A write
       * whose rows it reads, the fork windows' and a cluster join, runs as it is, unprofiled.) No
       * copy of the graph: GRAPH.COPY forks the server, a cost beside other files' statements.
       */
      const profiled = (q: string, p: CypherParams) =>
        Effect.promise(async () => {
          if (q.startsWith("UNWIND $rows AS r CREATE (:Fact")) written += (p["rows"] as Array<unknown>).length
          if (written <= fillerFacts) return false
          const n = (seen.get(q) ?? 0) + 1
          seen.set(q, n)
          if (n > 2) return false
          const inline = inlineParams(p)
          const plan = ((await raw.selectGraph(db.graphName).profile(`CYPHER ${inline} ${q}`)) as Array<string>).join(
            "\n"
          )
          const most = Math.max(0, ...[...plan.matchAll(/Records produced: (\d+)/g)].map((m) => Number(m[1])))
          plans.push({ q, most, plan })
          return true
        })
      const recording: GraphDatabaseShape = {
        ...db,
        write: ((q: string, p?: CypherParams, s?: Schema.Schema<unknown>) =>
          s === undefined
            ? Effect.flatMap(profiled(q, p ?? {}), (done) => (done ? Effect.succeed([]) : db.write(q, p ?? {})))
            : db.write(q, p ?? {}, s as never)) as GraphDatabaseShape["write"],
        read: ((q: string, p?: CypherParams, s?: Schema.Schema<unknown>) =>
          Effect.zipRight(profiled(q, p ?? {}), db.read(q, p ?? {}, s as never))) as GraphDatabaseShape["read"]
      }
      const counts = yield* withDatabase(importText(text, { merge: false }), recording)
      expect(counts.facts).toBe(facts)
      expect(counts.refused).toEqual([])
      // The hostile part's fact statements and what follows each (records, fork pairs and marks) were profiled.
      for (const first of ["UNWIND $rows AS r CREATE (:Fact", "UNWIND $decisions"]) {
        expect(plans.some((p) =>
          p.q.startsWith(first)
        )).toBe(true)
      }
      const over = plans.filter((p) => p.most > bound).map((p) => `${p.most} rows: ${p.q.slice(0, 80)}\n${p.plan}`)
      expect(over).toEqual([])
      yield* db.dropGraph
    }))
})
