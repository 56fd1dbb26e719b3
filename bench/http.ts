/**
 * Streamable HTTP against stdio, on the same graph and the same database. Part of `npm run bench`;
 * alone:
 *
 *   npm run build && node --import tsx bench/http.ts      (HTTP_BENCH_CALLS=400 by default)
 *
 * One `relay` over stdio (RELAY_GRAPH = the workspace's graph) and one `relay --http` with a token of
 * that workspace; relay_save_fact and relay_get_context are called over stdio and over HTTP by two
 * SDK clients, one on Node's global fetch (undici) and one on node:http (nodeFetch.ts), alternating
 * call by call, in an order that rotates, so drift and position hit all alike. The issue asks for
 * HTTP p50 within 1 ms of stdio's. The two HTTP clients reach the same server through different
 * client stacks (undici sends more headers and writes the socket its own way); their gap is the
 * client stack's, not Relay's code.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { randomBytes } from "node:crypto"
import { type BenchDatabase, openDatabase, relayEnv } from "./db.js"
import { nodeHttpFetch } from "./nodeFetch.js"
import { stdioClient } from "./relay.js"
import { startHttpRelay, tokenCommand } from "./relayProcess.js"
import { type Stats, summarise } from "./sampler.js"

const clients = ["stdio", "http", "nodeHttp"] as const
type Via = typeof clients[number]

export type HttpVsStdio = Record<"save" | "context", Record<Via, Stats>>

export const httpVsStdio = async (db: BenchDatabase, calls: number): Promise<HttpVsStdio> => {
  const workspace = `bench-${randomBytes(3).toString("hex")}`
  const env = { ...relayEnv(db, `relay_ws_${workspace}`), RELAY_TOKEN_GRAPH: `relay_tokens_${workspace}` }
  const token = (await tokenCommand(env, ["create", "--name", "bench", "--workspace", workspace])).stdout
  const server = await startHttpRelay(env)
  const connect = async (fetch?: ReturnType<typeof nodeHttpFetch>) => {
    const client = new Client({ name: "relay-bench", version: "0.0.0" })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        ...(fetch === undefined ? {} : { fetch })
      })
    )
    await client.listTools() // as a real client does; the SDK then checks structuredContent against outputSchema
    return client
  }
  const stdio = await stdioClient(env)
  const overHttp = { http: await connect(), nodeHttp: await connect(nodeHttpFetch()) }
  try {
    const call = async (via: Via, name: string, args: Record<string, unknown>) => {
      if (via === "stdio") return stdio.call(name, name === "relay_save_fact" ? { ...args, written_by: "bench" } : args)
      const r = await overHttp[via].callTool({ name, arguments: args })
      if (r.isError === true) throw new Error(JSON.stringify(r.content))
    }
    const root = await stdio.call("relay_save_fact", { content: "bench root", written_by: "bench", session_id: "b" })
    const rootId = root.fact.id as string
    const samples = Object.fromEntries(
      clients.map((via) => [via, { save: [] as Array<number>, context: [] as Array<number> }])
    ) as Record<Via, { save: Array<number>; context: Array<number> }>
    const time = async (f: () => Promise<unknown>) => {
      const t = performance.now()
      await f()
      return performance.now() - t
    }
    for (let i = 0; i < calls + 20; i++) {
      for (const via of [...clients.slice(i % 3), ...clients.slice(0, i % 3)]) {
        const save = await time(() =>
          call(via, "relay_save_fact", { content: `${via} ${i}`, session_id: "b", parent_fact_id: rootId })
        )
        const context = await time(() => call(via, "relay_get_context", { fact_id: rootId }))
        if (i >= 20) {
          samples[via].save.push(save)
          samples[via].context.push(context)
        }
      }
    }
    const of = (tool: "save" | "context") =>
      Object.fromEntries(clients.map((via) => [via, summarise(samples[via][tool])])) as Record<Via, Stats>
    return { save: of("save"), context: of("context") }
  } finally {
    await Promise.all(Object.values(overHttp).map((c) => c.close().catch(() => undefined)))
    await stdio.close().catch(() => undefined)
    // Waited for, before the caller stops the database.
    await server.stop()
  }
}

export const httpTable = (r: HttpVsStdio): string => {
  const f = (s: Stats) => `${s.p50.toFixed(2)}/${s.p95.toFixed(2)}`
  const gap = (tool: "save" | "context", via: Via) => `${(r[tool][via].p50 - r[tool].stdio.p50).toFixed(2)} ms`
  const head = `${"tool".padEnd(20)}${"stdio p50/95".padStart(14)}${"http fetch".padStart(14)}` +
    `${"http node:http".padStart(16)}${"fetch - stdio".padStart(15)}${"node:http - stdio".padStart(19)}`
  const rows = (["save", "context"] as const).map((tool) =>
    `${`relay_${tool === "save" ? "save_fact" : "get_context"}`.padEnd(20)}${f(r[tool].stdio).padStart(14)}` +
    `${f(r[tool].http).padStart(14)}${f(r[tool].nodeHttp).padStart(16)}${gap(tool, "http").padStart(15)}` +
    `${gap(tool, "nodeHttp").padStart(19)}`
  )
  return [
    head,
    ...rows,
    `(p50 gaps; n=${r.save.stdio.n} each, calls alternated; both HTTP clients are the MCP SDK's, on Node's fetch and on node:http)`
  ].join("\n")
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const db = await openDatabase()
  try {
    process.stdout.write(`${httpTable(await httpVsStdio(db, Number(process.env.HTTP_BENCH_CALLS ?? 400)))}\n`)
  } finally {
    await db.stop()
  }
}
