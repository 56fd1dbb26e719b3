/**
 * The two protocol generations side by side, on the same graph and database: relay_save_fact and
 * relay_get_context end to end over stdio 2025-11-25, stdio 2026-07-28, HTTP 2025-11-25 (a session,
 * src/http/jsonTransport.ts) and HTTP 2026-07-28 (no session: the v2 SDK's per-request handler,
 * src/http/modernRequests.ts). Every client is the v2 SDK's `@modelcontextprotocol/client`, in
 * `legacy` mode for 2025 and pinned to 2026-07-28, on the SDK's own transports, so the two
 * generations differ only in what the server does. Calls alternate in a rotating order. Then the
 * stdio connect time of each generation (spawn to connected), the clients connecting in turn.
 * Part of `npm run bench`; alone:
 *
 *   npm run build && node --import tsx bench/generations.ts      (GENERATIONS_BENCH_CALLS=300)
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { randomBytes } from "node:crypto"
import { type BenchDatabase, openDatabase, relayEnv } from "./db.js"
import { serverEntry, startHttpRelay, tokenCommand } from "./relayProcess.js"
import { type Stats, summarise } from "./sampler.js"

const routes = ["stdio 2025", "stdio 2026", "http 2025", "http 2026"] as const
type Route = typeof routes[number]

export interface Generations {
  readonly save: Record<Route, Stats>
  readonly context: Record<Route, Stats>
  readonly connect: Record<"2025" | "2026" | "2026 in place", Stats>
}

const negotiation = (generation: "2025" | "2026") =>
  generation === "2026" ? { mode: { pin: "2026-07-28" } } : { mode: "legacy" as const }

const client = (generation: "2025" | "2026") =>
  new Client({ name: "relay-bench", version: "0.0.0" }, { versionNegotiation: negotiation(generation) })

const stdio = (env: Record<string, string>) =>
  new StdioClientTransport({ command: process.execPath, args: [serverEntry], env, stderr: "ignore" })

/** A subclass: the SDK then asks server/discover of the process it keeps, not of a second one. */
class InPlaceStdio extends StdioClientTransport {}

const elapsed = async (f: () => Promise<unknown>) => {
  const t = performance.now()
  await f()
  return performance.now() - t
}

export const generations = async (db: BenchDatabase, calls: number, connects = 5): Promise<Generations> => {
  const workspace = `bench-${randomBytes(3).toString("hex")}`
  const env = { ...relayEnv(db, `relay_ws_${workspace}`), RELAY_TOKEN_GRAPH: `relay_tokens_${workspace}` }
  const token = (await tokenCommand(env, ["create", "--name", "bench", "--workspace", workspace])).stdout
  const server = await startHttpRelay(env)
  const http = () =>
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } }
    })
  const clients = {} as Record<Route, Client>
  try {
    for (const route of routes) {
      const generation = route.endsWith("2026") ? "2026" : "2025"
      const c = client(generation)
      await c.connect(route.startsWith("stdio") ? stdio(env) : http())
      await c.listTools() // as a real client does; the SDK then checks structuredContent against outputSchema
      clients[route] = c
    }
    const call = async (route: Route, name: string, args: Record<string, unknown>) => {
      const r = await clients[route].callTool({ name, arguments: args })
      if (r.isError === true) throw new Error(`${route} ${name}: ${JSON.stringify(r.content)}`)
      return r.structuredContent as { fact: { id: string } }
    }
    const written = { written_by: "bench", session_id: "g" }
    const root = await call("stdio 2025", "relay_save_fact", { content: "generations root", ...written })
    const rootId = root.fact.id
    const samples = Object.fromEntries(
      routes.map((r) => [r, { save: [] as Array<number>, context: [] as Array<number> }])
    )
    for (let i = 0; i < calls + 20; i++) {
      for (const route of [...routes.slice(i % 4), ...routes.slice(0, i % 4)]) {
        const args = { content: `${route} ${i}`, parent_fact_id: rootId, ...written }
        const save = await elapsed(() => call(route, "relay_save_fact", args))
        const context = await elapsed(() => call(route, "relay_get_context", { fact_id: rootId }))
        if (i >= 20) {
          samples[route]!.save.push(save)
          samples[route]!.context.push(context)
        }
      }
    }
    const of = (tool: "save" | "context") =>
      Object.fromEntries(routes.map((r) => [r, summarise(samples[r]![tool])])) as Record<Route, Stats>

    const kinds = ["2025", "2026", "2026 in place"] as const
    const connectTimes = {
      "2025": [] as Array<number>,
      "2026": [] as Array<number>,
      "2026 in place": [] as Array<number>
    }
    for (let i = 0; i < connects; i++) {
      for (const kind of [...kinds.slice(i % 3), ...kinds.slice(0, i % 3)]) {
        const c = client(kind === "2025" ? "2025" : "2026")
        const transport = kind === "2026 in place"
          ? new InPlaceStdio({ command: process.execPath, args: [serverEntry], env, stderr: "ignore" })
          : stdio(env)
        // To the first answer: a 2026 connect on the SDK's own transport resolves before the process it keeps is up.
        connectTimes[kind].push(await elapsed(() => c.connect(transport).then(() => c.listTools())))
        await c.close()
      }
    }
    return {
      save: of("save"),
      context: of("context"),
      connect: {
        "2025": summarise(connectTimes["2025"]),
        "2026": summarise(connectTimes["2026"]),
        "2026 in place": summarise(connectTimes["2026 in place"])
      }
    }
  } finally {
    await Promise.all(Object.values(clients).map((c) => c.close().catch(() => undefined)))
    await server.stop()
  }
}

export const generationsTable = (r: Generations): string => {
  const f = (s: Stats) => `${s.p50.toFixed(2)}/${s.p95.toFixed(2)}`
  const head = `${"tool (p50/p95 ms)".padEnd(20)}${routes.map((x) => x.padStart(14)).join("")}` +
    `${"http 26-25".padStart(12)}`
  const rows = (["save", "context"] as const).map((tool) =>
    `${`relay_${tool === "save" ? "save_fact" : "get_context"}`.padEnd(20)}` +
    routes.map((x) => f(r[tool][x]).padStart(14)).join("") +
    `${(r[tool]["http 2026"].p50 - r[tool]["http 2025"].p50).toFixed(2).padStart(9)} ms`
  )
  const connect = (g: keyof Generations["connect"]) =>
    `${r.connect[g].p50.toFixed(0)} ms p50 (min ${r.connect[g].min.toFixed(0)}, max ${r.connect[g].max.toFixed(0)})`
  return [
    head,
    ...rows,
    `(n=${
      r.save["http 2026"].n
    } each, calls alternated; every client the v2 SDK's, legacy mode for 2025, pinned for 2026)`,
    `stdio, spawn to the first answer (connect, then tools/list; n=${r.connect["2025"].n} each, alternated): ` +
    `2025 ${connect("2025")}; 2026 ${connect("2026")}; 2026 probing in place ${connect("2026 in place")}`
  ].join("\n")
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const db = await openDatabase()
  try {
    process.stdout.write(
      `${generationsTable(await generations(db, Number(process.env.GENERATIONS_BENCH_CALLS ?? 300)))}\n`
    )
  } finally {
    await db.stop()
  }
}
