/**
 * Streamable HTTP against stdio, on the same graph and the same database. Part of `npm run bench`;
 * alone:
 *
 *   npm run build && node --import tsx bench/http.ts      (HTTP_BENCH_CALLS=400 by default)
 *
 * One `relay` over stdio (RELAY_GRAPH = the workspace's graph) and one `relay --http` with a token of
 * that workspace; relay_save_fact and relay_get_context are called by the MCP SDK's Client over
 * stdio and over HTTP on two client transports, alternating call by call in an order that rotates,
 * so drift and position hit all alike. The issue asks for HTTP p50 within 1 ms of stdio's:
 * - `lean`: leanHttpTransport.ts on Node's `http`, as light on the client side as the SDK's stdio
 *   transport, so its gap to stdio is what the server's HTTP path adds;
 * - `sdk`: the SDK's StreamableHTTPClientTransport on Node's global fetch (undici), as many
 *   clients run; what it adds over `lean` is that client stack's, not Relay's.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { randomBytes } from "node:crypto"
import { type BenchDatabase, openDatabase, relayEnv } from "./db.js"
import { LeanHttpTransport } from "./leanHttpTransport.js"
import { stdioClient } from "./relay.js"
import { startHttpRelay, tokenCommand } from "./relayProcess.js"
import { type Stats, summarise } from "./sampler.js"

const clients = ["stdio", "sdk", "lean"] as const
type Via = typeof clients[number]

export type HttpVsStdio = Record<"save" | "context", Record<Via, Stats>>

export const httpVsStdio = async (db: BenchDatabase, calls: number): Promise<HttpVsStdio> => {
  const workspace = `bench-${randomBytes(3).toString("hex")}`
  const env = { ...relayEnv(db, `relay_ws_${workspace}`), RELAY_TOKEN_GRAPH: `relay_tokens_${workspace}` }
  const token = (await tokenCommand(env, ["create", "--name", "bench", "--workspace", workspace])).stdout
  const server = await startHttpRelay(env)
  const connect = async (transport: LeanHttpTransport | StreamableHTTPClientTransport) => {
    const client = new Client({ name: "relay-bench", version: "0.0.0" })
    await client.connect(transport)
    await client.listTools() // as a real client does; the SDK then checks structuredContent against outputSchema
    return client
  }
  const stdio = await stdioClient(env)
  const url = new URL(server.url)
  const overHttp = {
    sdk: await connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } })
    ),
    lean: await connect(new LeanHttpTransport(url, token))
  }
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
  const head = `${"tool".padEnd(20)}${"stdio p50/95".padStart(14)}${"lean p50/95".padStart(14)}` +
    `${"sdk p50/95".padStart(14)}${"lean - stdio".padStart(15)}${"sdk - stdio".padStart(15)}`
  const rows = (["save", "context"] as const).map((tool) =>
    `${`relay_${tool === "save" ? "save_fact" : "get_context"}`.padEnd(20)}${f(r[tool].stdio).padStart(14)}` +
    `${f(r[tool].lean).padStart(14)}${f(r[tool].sdk).padStart(14)}${gap(tool, "lean").padStart(15)}` +
    `${gap(tool, "sdk").padStart(15)}`
  )
  return [
    head,
    ...rows,
    `(p50 gaps; n=${r.save.stdio.n} each, calls alternated; the SDK's Client on every transport: HTTP on leanHttpTransport.ts ` +
    `(node:http) and on the SDK's own transport (Node's fetch))`
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
