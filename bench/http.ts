/**
 * Streamable HTTP against stdio, on the same graph and the same database:
 *
 *   npm run build && node --import tsx bench/http.ts      (HTTP_BENCH_CALLS=400 by default)
 *
 * One `relay` over stdio (RELAY_GRAPH = the workspace's graph) and one `relay --http` with a token of
 * that workspace; relay_save_fact and relay_get_context are called on both, alternating call by call so
 * drift hits both alike. Prints p50 and p95 of each and the difference of the p50s (the issue asks
 * for HTTP within 1 ms of stdio).
 */
import { execFile, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { openDatabase, relayEnv } from "./db.js"
import { stdioClient } from "./relay.js"
import { summarise } from "./sampler.js"

const calls = Number(process.env.HTTP_BENCH_CALLS ?? 400)
const serverEntry = fileURLToPath(new URL("../dist/server.js", import.meta.url))
const tokenCli = fileURLToPath(new URL("../dist/cli/token.js", import.meta.url))
const db = await openDatabase()
const workspace = `bench-${randomBytes(3).toString("hex")}`
const env = { ...relayEnv(db, `relay_ws_${workspace}`), RELAY_TOKEN_GRAPH: `relay_tokens_${workspace}` }

const token = (await promisify(execFile)(process.execPath, [tokenCli, "create", "--name", "bench", "--workspace", workspace], { env }))
  .stdout.trim()
const child = spawn(process.execPath, [serverEntry, "--http"], { env: { ...env, RELAY_HTTP_PORT: "0" }, stdio: ["ignore", "ignore", "pipe"] })
const url = await new Promise<string>((resolve, reject) => {
  let err = ""
  child.stderr.on("data", (c: Buffer) => {
    err += c.toString()
    const m = /ready on (http:\/\/\S+\/mcp)/.exec(err)
    if (m !== null) resolve(m[1]!)
  })
  child.once("exit", () => reject(new Error(err)))
})
const httpClient = new Client({ name: "relay-bench", version: "0.0.0" })
await httpClient.connect(new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { authorization: `Bearer ${token}` } }
}))
await httpClient.listTools()
const http = {
  call: (name: string, args: Record<string, unknown>) => httpClient.callTool({ name, arguments: args }),
  close: () => httpClient.close()
}
const stdio = await stdioClient(env)

try {
  const root = await stdio.call("relay_save_fact", { content: "bench root", written_by: "bench", session_id: "b" })
  const rootId = root.fact.id as string
  const samples = { stdio: { save: [] as Array<number>, context: [] as Array<number> }, http: { save: [] as Array<number>, context: [] as Array<number> } }
  const time = async (f: () => Promise<unknown>) => {
    const t = performance.now()
    await f()
    return performance.now() - t
  }
  const viaHttp = async (name: string, args: Record<string, unknown>) => {
    const r = await http.call(name, args)
    if (r.isError === true) throw new Error(JSON.stringify(r.content))
  }
  for (let i = 0; i < calls + 20; i++) {
    const keep = i >= 20
    const s1 = await time(() => stdio.call("relay_save_fact", { content: `s ${i}`, written_by: "bench", session_id: "b", parent_fact_id: rootId }))
    const h1 = await time(() => viaHttp("relay_save_fact", { content: `h ${i}`, session_id: "b", parent_fact_id: rootId }))
    const s2 = await time(() => stdio.call("relay_get_context", { fact_id: rootId }))
    const h2 = await time(() => viaHttp("relay_get_context", { fact_id: rootId }))
    if (keep) {
      samples.stdio.save.push(s1)
      samples.http.save.push(h1)
      samples.stdio.context.push(s2)
      samples.http.context.push(h2)
    }
  }
  for (const tool of ["save", "context"] as const) {
    const s = summarise(samples.stdio[tool])
    const h = summarise(samples.http[tool])
    process.stdout.write(
      `${tool.padEnd(8)} stdio p50 ${s.p50.toFixed(2)} ms p95 ${s.p95.toFixed(2)} | http p50 ${h.p50.toFixed(2)} ms p95 ${h.p95.toFixed(2)}` +
        ` | http - stdio p50 ${(h.p50 - s.p50).toFixed(2)} ms (n=${s.n})\n`
    )
  }
} finally {
  await http.close()
  await stdio.close()
  child.kill("SIGTERM")
  await db.stop()
}
