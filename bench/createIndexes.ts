/**
 * `node --import tsx bench/createIndexes.ts [prefill] [batches]` (default 50,000 and 40): what each
 * of Relay's Fact indexes costs a CREATE of 250 facts, without the rest of the import. One graph a
 * variant (the indexes and the unique constraint Relay makes, or fewer), each filled to `prefill`
 * facts, then batches of 250 created in turn across the variants (so a busy moment of the shared
 * machine falls on all alike), on FALKORDB_HOST/FALKORDB_PORT. Prints each variant's median and p90
 * server time ("Query internal execution time") of a batch, and how long the variant's missing
 * indexes then take to build over the filled graph (FalkorDB builds them in the background; a
 * variant waits until db.indexes() says OPERATIONAL).
 */
import { FalkorDB } from "falkordb"
import { randomBytes } from "node:crypto"
import { loadavg } from "node:os"
import { internalMillis } from "../src/layers/database/slowStatements.js"

const prefill = Number(process.argv[2] ?? 50_000)
const batches = Number(process.argv[3] ?? 40)
const size = 250

const range = (p: string) => `CREATE INDEX FOR (x:Fact) ON (x.${p})`
const fullText = "CALL db.idx.fulltext.createNodeIndex({label: 'Fact', language: 'english', stopwords: []}, 'content')"
const others = ["created_at", "session_id", "merge_depth", "root"]
const variants: Record<string, { indexes: ReadonlyArray<string>; unique: boolean }> = {
  "relay (all)": { indexes: [range("id"), ...others.map(range), fullText], unique: true },
  "no full-text": { indexes: [range("id"), ...others.map(range)], unique: true },
  "id, root, unique": { indexes: [range("id"), range("root")], unique: true },
  "id, unique": { indexes: [range("id")], unique: true },
  "id only": { indexes: [range("id")], unique: false }
}

const create = "UNWIND $rows AS r CREATE (:Fact {id: r.id, content: r.content, norm: r.norm, hash: r.hash, " +
  "written_by: r.written_by, session_id: r.session_id, created_at: r.created_at, stale_at: r.stale_at, " +
  "terms: r.terms, root: r.root})"

const words = ["service", "cache", "postgres", "redis", "latency", "queue", "deploy", "token", "index", "shard"]
const rowsFrom = (start: number) =>
  Array.from({ length: size }, (_, k) => {
    const i = start + k
    const content = `Fact ${i}: the ${words[i % 10]} on topic ${i % 997} answers within ${i % 97} ms after the ${
      words[(i * 7) % 10]
    } change`
    return {
      id: `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`,
      content,
      norm: content.toLowerCase(),
      hash: randomBytes(16).toString("hex"),
      written_by: `writer-${i % 5}`,
      session_id: "bench",
      created_at: 1_767_225_600_000 + i,
      stale_at: 8_640_000_000_000_000,
      terms: content.toLowerCase().split(/\W+/).filter((w) => w.length > 2),
      root: `00000000-0000-4000-8000-${(i - (i % 50)).toString(16).padStart(12, "0")}`
    }
  })

const main = async () => {
  const client = await FalkorDB.connect({
    socket: {
      host: process.env["FALKORDB_HOST"] ?? "127.0.0.1",
      port: Number(process.env["FALKORDB_PORT"] ?? 6379)
    },
    ...(process.env["FALKORDB_PASSWORD"] ? { password: process.env["FALKORDB_PASSWORD"] } : {})
  })
  const tag = randomBytes(3).toString("hex")
  const graphs = Object.entries(variants).map(([name, v]) => ({
    name,
    v,
    g: client.selectGraph(`bench_ci_${tag}_${name.replace(/\W+/g, "_")}`),
    ms: [] as Array<number>
  }))
  for (const { v, g } of graphs) {
    for (const q of v.indexes) await g.query(q)
    if (v.unique) await g.constraintCreate("UNIQUE" as never, "NODE" as never, "Fact", "id")
  }
  console.log(`prefill ${prefill} facts a graph, load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  for (let at = 0; at < prefill; at += size) {
    for (const { g } of graphs) await g.query(create, { params: { rows: rowsFrom(at) } })
  }
  for (let b = 0; b < batches; b++) {
    for (const x of graphs) {
      const reply = await x.g.query(create, { params: { rows: rowsFrom(prefill + b * size) } })
      x.ms.push(internalMillis(reply.metadata as never) ?? NaN)
    }
  }
  const full = variants["relay (all)"]!
  console.log("variant            median ms  p90 ms   then build the rest (s)")
  for (const x of graphs) {
    const sorted = [...x.ms].sort((a, b) => a - b)
    const t = performance.now()
    for (const q of full.indexes.filter((q) => !x.v.indexes.includes(q))) {
      // The label's index keeps its language and stopwords; it refuses them given again.
      await x.g.query(q === fullText ? "CALL db.idx.fulltext.createNodeIndex('Fact', 'content')" : q)
    }
    if (!x.v.unique) await x.g.constraintCreate("UNIQUE" as never, "NODE" as never, "Fact", "id")
    for (;;) {
      const idx = await x.g.roQuery<{ status: string }>("CALL db.indexes() YIELD status RETURN status")
      const cons = await x.g.roQuery<{ status: string }>("CALL db.constraints() YIELD status RETURN status")
      if ([...(idx.data ?? []), ...(cons.data ?? [])].every((r) => r.status === "OPERATIONAL")) break
      await new Promise((r) => setTimeout(r, 50))
    }
    const build = (performance.now() - t) / 1000
    console.log(
      `${x.name.padEnd(18)} ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1).padStart(9)} ${
        sorted[Math.floor(sorted.length * 0.9)]!.toFixed(1).padStart(7)
      }   ${build.toFixed(2)}`
    )
    await x.g.delete()
  }
  console.log(`load after ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  await client.close()
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
