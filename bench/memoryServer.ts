import type { FalkorDB } from "falkordb"
import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { type GeneratedGraph, rng } from "./graph.js"
import { stdioClient, type StdioRelay } from "./relay.js"
import { sample, type SampleOptions, type Stats } from "./sampler.js"
import { countSession, type ParentPool } from "./throughput.js"

/**
 * Relay next to @modelcontextprotocol/server-memory on the same logical work, both through the
 * same SDK Client over stdio. server-memory keeps the graph as entities (one per fact, its text
 * and metadata as observations) and relations (builds_on, supersedes) in a JSONL file.
 */
const require = createRequire(import.meta.url)
const memoryEntry = join(
  dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")),
  "dist",
  "index.js"
)

/** What server-memory's open_nodes and read_graph answer (it lists no outputSchema to type them by). */
interface MemoryGraph {
  readonly entities: ReadonlyArray<{ readonly observations: ReadonlyArray<string> }>
  readonly relations: ReadonlyArray<{ readonly from: string; readonly to: string; readonly relationType: string }>
}

const opts: SampleOptions = { warmup: 3, min: 10, max: 150, budgetMs: 2000 }

export interface Side {
  readonly saveBuildsOn: Stats
  readonly readChain: Stats
  readonly recent: Stats
}
export interface Landed {
  readonly attempted: number
  readonly acknowledged: number
  readonly landed: number
  readonly relationsLanded?: number
}
export interface Comparison {
  readonly size: number
  readonly relay: Side
  readonly memory: Side
  readonly memoryFileMb: number
  readonly concurrent: {
    readonly relayOneClient: Landed
    readonly relayTwoProcesses: Landed
    readonly memoryOneClient: Landed
    readonly memoryTwoProcesses: Landed
  }
}

const entity = (name: string, content: string, writer: string, session: string, at: number) => ({
  name,
  entityType: "fact",
  observations: [content, `written_by: ${writer}`, `session: ${session}`, `created_at: ${new Date(at).toISOString()}`]
})

const writeJsonl = (file: string, g: GeneratedGraph) => {
  const lines = [
    ...g.facts.map((f) =>
      JSON.stringify({ type: "entity", ...entity(f.id, f.content, f.written_by, f.session_id, f.created_at) })
    ),
    ...g.buildsOn.map(([from, to]) => JSON.stringify({ type: "relation", from, to, relationType: "builds_on" })),
    ...g.supersedes.map((s) => JSON.stringify({ type: "relation", from: s.from, to: s.to, relationType: "supersedes" }))
  ]
  writeFileSync(file, lines.join("\n"))
}

const memoryEnv = (file: string): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "/tmp",
  MEMORY_FILE_PATH: file
})

export const compareWithMemoryServer = async (args: {
  readonly g: GeneratedGraph
  readonly relay: StdioRelay
  readonly spawnRelay: () => Promise<StdioRelay>
  readonly client: FalkorDB
  readonly graphName: string
  readonly pool: ParentPool
  readonly log: (s: string) => void
}): Promise<Comparison> => {
  const { g, relay, pool, log } = args
  const dir = mkdtempSync(join(tmpdir(), "relay-bench-memory-"))
  const file = join(dir, "memory.jsonl")
  writeJsonl(file, g)
  const memory = await stdioClient(memoryEnv(file), [memoryEntry], "server-memory")
  const memoryParents = [...g.leaves]
  const rand = rng(g.facts.length * 17)
  const targets = Array.from({ length: 256 }, () => g.facts[Math.floor(rand() * g.facts.length)]!.id)
  try {
    const relaySide: Side = {
      saveBuildsOn: await sample(async () => {
        const r = await relay.call("relay_save_fact", {
          content: "Compare: the deploy window moves to Tuesdays",
          written_by: "bench-writer",
          session_id: "bench:compare",
          parent_fact_id: pool.take()
        })
        pool.give(r.fact.id)
      }, opts),
      readChain: await sample((i) => relay.call("relay_get_context", { fact_id: targets[i % targets.length] }), opts),
      recent: await sample(() => relay.call("relay_get_current_state", { limit: 20 }), opts)
    }
    log(
      `  relay         save+builds_on ${relaySide.saveBuildsOn.p50.toFixed(2)} ms  chain ${
        relaySide.readChain.p50.toFixed(2)
      } ms  recent ${relaySide.recent.p50.toFixed(2)} ms (p50)`
    )

    const memorySave = async (m: StdioRelay, parent: string) => {
      const name = randomUUID()
      await m.call("create_entities", {
        entities: [
          entity(name, "Compare: the deploy window moves to Tuesdays", "bench-writer", "bench:compare", Date.now())
        ]
      })
      await m.call("create_relations", { relations: [{ from: name, to: parent, relationType: "builds_on" }] })
      return name
    }
    const memorySide: Side = {
      saveBuildsOn: await sample(async () => {
        const parent = memoryParents.shift() as string
        memoryParents.push(await memorySave(memory, parent))
      }, opts),
      // No traversal in server-memory: the client opens one node at a time and follows builds_on.
      readChain: await sample(async (i) => {
        let current: string | undefined = targets[i % targets.length]
        let hops = 0
        while (current !== undefined && hops++ < 10_000) {
          const r = await memory.call("open_nodes", { names: [current] }) as MemoryGraph
          const up = r.relations.find((x) => x.from === current && x.relationType === "builds_on")
          current = up?.to
        }
      }, opts),
      // "Recent facts" = read the whole graph and sort by the created_at observation on the client.
      recent: await sample(async () => {
        const r = await memory.call("read_graph", {}) as MemoryGraph
        const at = (e: { readonly observations: ReadonlyArray<string> }) =>
          e.observations.find((o) => o.startsWith("created_at: ")) ?? ""
        ;[...r.entities].sort((a, b) => at(b).localeCompare(at(a))).slice(
          0,
          20
        )
      }, { ...opts, max: 40 })
    }
    log(
      `  server-memory save+builds_on ${memorySide.saveBuildsOn.p50.toFixed(2)} ms  chain ${
        memorySide.readChain.p50.toFixed(2)
      } ms  recent ${memorySide.recent.p50.toFixed(2)} ms (p50)`
    )

    // 20 concurrent writes, from one client and split over two processes; then count what landed.
    const relayConcurrent = async (clients: ReadonlyArray<StdioRelay>, session: string): Promise<Landed> => {
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          clients[i % clients.length]!.call("relay_save_fact", {
            content: `Concurrent note ${i}`,
            written_by: "bench-writer",
            session_id: session,
            parent_fact_id: pool.take()
          }).then((r) => pool.give(r.fact.id)))
      )
      return {
        attempted: 20,
        acknowledged: results.filter((r) => r.status === "fulfilled").length,
        landed: await countSession(args.client, args.graphName, session)
      }
    }
    const memoryConcurrent = async (clients: ReadonlyArray<StdioRelay>, tag: string): Promise<Landed> => {
      const names: Array<string> = Array.from({ length: 20 }, () => randomUUID())
      const results = await Promise.allSettled(names.map(async (name, i) => {
        const m = clients[i % clients.length]!
        await m.call("create_entities", {
          entities: [entity(name, `Concurrent note ${i} ${tag}`, "bench-writer", tag, Date.now())]
        })
        await m.call("create_relations", {
          relations: [{ from: name, to: memoryParents[i] as string, relationType: "builds_on" }]
        })
      }))
      const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) =>
        JSON.parse(l) as Record<string, string>
      )
      const wanted = new Set(names)
      return {
        attempted: 20,
        acknowledged: results.filter((r) => r.status === "fulfilled").length,
        landed: lines.filter((l) => l.type === "entity" && wanted.has(l.name ?? "")).length,
        relationsLanded: lines.filter((l) => l.type === "relation" && wanted.has(l.from ?? "")).length
      }
    }
    const second = await args.spawnRelay()
    const memory2 = await stdioClient(memoryEnv(file), [memoryEntry], "server-memory#2")
    let concurrent: Comparison["concurrent"]
    try {
      concurrent = {
        relayOneClient: await relayConcurrent([relay], `bench:c1:${randomUUID().slice(0, 8)}`),
        relayTwoProcesses: await relayConcurrent([relay, second], `bench:c2:${randomUUID().slice(0, 8)}`),
        memoryOneClient: await memoryConcurrent([memory], "one-client"),
        memoryTwoProcesses: await memoryConcurrent([memory, memory2], "two-processes")
      }
    } finally {
      await second.close()
      await memory2.close()
    }
    const c = concurrent
    log(
      `  20 concurrent writes landed: relay ${c.relayOneClient.landed}/20 (one client), ${c.relayTwoProcesses.landed}/20 (two processes); ` +
        `server-memory ${c.memoryOneClient.landed}/20 entities + ${c.memoryOneClient.relationsLanded}/20 relations (one client), ` +
        `${c.memoryTwoProcesses.landed}/20 + ${c.memoryTwoProcesses.relationsLanded}/20 (two processes)`
    )
    const memoryFileMb = readFileSync(file).length / 1024 / 1024
    return { size: g.facts.length, relay: relaySide, memory: memorySide, memoryFileMb, concurrent }
  } finally {
    await memory.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
