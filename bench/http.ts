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
import { execFile, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { type BenchDatabase, openDatabase, relayEnv } from "./db.js"
import { stdioClient } from "./relay.js"
import { type Stats, summarise } from "./sampler.js"

const serverEntry = fileURLToPath(new URL("../dist/server.js", import.meta.url))
const tokenCli = fileURLToPath(new URL("../dist/cli/token.js", import.meta.url))

export type HttpVsStdio = Record<"save" | "context", { readonly stdio: Stats; readonly http: Stats }>

/** Starts `relay --http` on a free loopback port and resolves its /mcp address once it says ready. */
const startHttpServer = (env: Record<string, string>) => {
  const child = spawn(process.execPath, [serverEntry, "--http"], {
    env: { ...env, RELAY_HTTP_PORT: "0" },
    stdio: ["ignore", "ignore", "pipe"]
  })
  const url = new Promise<string>((resolve, reject) => {
    let err = ""
    child.stderr.on("data", (c: Buffer) => {
      err = (err + c.toString()).slice(-8000)
      const m = /ready on (http:\/\/\S+\/mcp)/.exec(err)
      if (m !== null) resolve(m[1]!)
    })
    child.once("exit", () => reject(new Error(err)))
  })
  return { child, url }
}

export const httpVsStdio = async (db: BenchDatabase, calls: number): Promise<HttpVsStdio> => {
  const workspace = `bench-${randomBytes(3).toString("hex")}`
  const env = { ...relayEnv(db, `relay_ws_${workspace}`), RELAY_TOKEN_GRAPH: `relay_tokens_${workspace}` }
  const token =
    (await promisify(execFile)(process.execPath, [tokenCli, "create", "--name", "bench", "--workspace", workspace], {
      env
    }))
      .stdout.trim()
  const server = startHttpServer(env)
  const httpClient = new Client({ name: "relay-bench", version: "0.0.0" })
  const stdio = await stdioClient(env)
  try {
    await httpClient.connect(
      new StreamableHTTPClientTransport(new URL(await server.url), {
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
    // Waited for, before the caller stops the database: a server still shutting down against a
    // stopped database was once left running.
    const exited = new Promise<void>((resolve) => {
      if (server.child.exitCode !== null || server.child.signalCode !== null) return resolve()
      server.child.once("exit", () => resolve())
    })
    server.child.kill("SIGTERM")
    const forced = setTimeout(() => server.child.kill("SIGKILL"), 10_000)
    await exited
    clearTimeout(forced)
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
