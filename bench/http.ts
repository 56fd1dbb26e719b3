/**
 * Streamable HTTP against stdio, on the same graph and the same database. Part of `npm run bench`;
 * alone:
 *
 *   npm run build && node --import tsx bench/http.ts      (HTTP_BENCH_CALLS=400 by default)
 *
 * One `relay` over stdio (RELAY_GRAPH = the workspace's graph) and one `relay --http` with a token of
 * that workspace; relay_save_fact and relay_get_context are called on both, alternating call by call so
 * drift hits both alike. The issue asks for HTTP p50 within 1 ms of stdio's.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { randomBytes } from "node:crypto"
import { type BenchDatabase, openDatabase, relayEnv } from "./db.js"
import { stdioClient } from "./relay.js"
import { startHttpRelay, tokenCommand } from "./relayProcess.js"
import { type Stats, summarise } from "./sampler.js"

export type HttpVsStdio = Record<"save" | "context", { readonly stdio: Stats; readonly http: Stats }>

export const httpVsStdio = async (db: BenchDatabase, calls: number): Promise<HttpVsStdio> => {
  const workspace = `bench-${randomBytes(3).toString("hex")}`
  const env = { ...relayEnv(db, `relay_ws_${workspace}`), RELAY_TOKEN_GRAPH: `relay_tokens_${workspace}` }
  const token = (await tokenCommand(env, ["create", "--name", "bench", "--workspace", workspace])).stdout
  const server = await startHttpRelay(env)
  const httpClient = new Client({ name: "relay-bench", version: "0.0.0" })
  const stdio = await stdioClient(env)
  try {
    await httpClient.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } }
      })
    )
    await httpClient.listTools() // as a real client does; the SDK then checks structuredContent against outputSchema
    const viaHttp = async (name: string, args: Record<string, unknown>) => {
      const r = await httpClient.callTool({ name, arguments: args })
      if (r.isError === true) throw new Error(JSON.stringify(r.content))
    }
    const root = await stdio.call("relay_save_fact", { content: "bench root", written_by: "bench", session_id: "b" })
    const rootId = root.fact.id as string
    const samples = {
      stdio: { save: [] as Array<number>, context: [] as Array<number> },
      http: { save: [] as Array<number>, context: [] as Array<number> }
    }
    const time = async (f: () => Promise<unknown>) => {
      const t = performance.now()
      await f()
      return performance.now() - t
    }
    for (let i = 0; i < calls + 20; i++) {
      const keep = i >= 20
      const s1 = await time(() =>
        stdio.call("relay_save_fact", {
          content: `s ${i}`,
          written_by: "bench",
          session_id: "b",
          parent_fact_id: rootId
        })
      )
      const h1 = await time(() =>
        viaHttp("relay_save_fact", { content: `h ${i}`, session_id: "b", parent_fact_id: rootId })
      )
      const s2 = await time(() => stdio.call("relay_get_context", { fact_id: rootId }))
      const h2 = await time(() => viaHttp("relay_get_context", { fact_id: rootId }))
      if (keep) {
        samples.stdio.save.push(s1)
        samples.http.save.push(h1)
        samples.stdio.context.push(s2)
        samples.http.context.push(h2)
      }
    }
    return {
      save: { stdio: summarise(samples.stdio.save), http: summarise(samples.http.save) },
      context: { stdio: summarise(samples.stdio.context), http: summarise(samples.http.context) }
    }
  } finally {
    await httpClient.close().catch(() => undefined)
    await stdio.close().catch(() => undefined)
    // Waited for, before the caller stops the database.
    await server.stop()
  }
}

export const httpTable = (r: HttpVsStdio): string => {
  const f = (s: Stats) => `${s.p50.toFixed(2)}/${s.p95.toFixed(2)}`
  const head = `${"tool".padEnd(20)}${"stdio p50/95".padStart(16)}${"http p50/95".padStart(16)}${
    "http - stdio p50".padStart(20)
  }`
  const rows = (["save", "context"] as const).map((tool) =>
    `${`relay_${tool === "save" ? "save_fact" : "get_context"}`.padEnd(20)}${f(r[tool].stdio).padStart(16)}` +
    `${f(r[tool].http).padStart(16)}${`${(r[tool].http.p50 - r[tool].stdio.p50).toFixed(2)} ms`.padStart(20)}`
  )
  return [head, ...rows, `(n=${r.save.stdio.n} each, calls alternated stdio/http)`].join("\n")
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const db = await openDatabase()
  try {
    process.stdout.write(`${httpTable(await httpVsStdio(db, Number(process.env.HTTP_BENCH_CALLS ?? 400)))}\n`)
  } finally {
    await db.stop()
  }
}
