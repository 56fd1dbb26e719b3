/**
 * What a request costs the Relay process's CPU by transport, with no database work: 16 concurrent
 * callers send MCP `ping`s for BENCH_MS to one stdio Relay and to one `relay --http` session (a
 * connection a caller, leanHttpTransport.ts), alternated for BENCH_ROUNDS rounds. The CPU is the
 * server process's own (user + system, /proc). Needs `npm run build`.
 *
 *   BENCH_ROUNDS=3 BENCH_MS=3000 node --import tsx bench/requestCpu.ts
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { randomBytes } from "node:crypto"
import { loadavg } from "node:os"
import { ownCpuMs, processCpuMs } from "./cpuShare.js"
import { openDatabase, relayEnv } from "./db.js"
import { LeanHttpTransport } from "./leanHttpTransport.js"
import { serverEntry, startHttpRelay, tokenCommand } from "./relayProcess.js"

const ms = Number(process.env.BENCH_MS ?? 3000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const callers = 16
const log = (line: string) => process.stdout.write(`${line}\n`)

const db = await openDatabase()
const workspace = `benchrq${randomBytes(3).toString("hex")}`
const env = { ...relayEnv(db, `relay_ws_${workspace}`), RELAY_TOKEN_GRAPH: `relay_tokens_${workspace}` }
const token = (await tokenCommand(env, ["create", "--name", "bench", "--workspace", workspace])).stdout
const server = await startHttpRelay(env)
const http = new Client({ name: "relay-bench", version: "0.0.0" })
await http.connect(new LeanHttpTransport(new URL(server.url), token, callers))
const stdioTransport = new StdioClientTransport({ command: process.execPath, args: [serverEntry], env, stderr: "pipe" })
const stdio = new Client({ name: "relay-bench", version: "0.0.0" })
await stdio.connect(stdioTransport)

const run = async (client: Client, pid: number | undefined) => {
  let n = 0
  const relay = processCpuMs(pid)
  const own = ownCpuMs()
  const started = performance.now()
  await Promise.all(Array.from({ length: callers }, async () => {
    while (performance.now() < started + ms) {
      await client.ping()
      n++
    }
  }))
  return {
    perSecond: n / ((performance.now() - started) / 1000),
    relay: (processCpuMs(pid) - relay) / n,
    client: (ownCpuMs() - own) / n
  }
}

try {
  log(`${callers} callers, ${ms} ms a run; load average ${loadavg().map((x) => x.toFixed(2)).join(", ")}`)
  log("| round | transport | pings/s | Relay CPU ms a request | bench client CPU ms a request | load |")
  log("|---|---|---|---|---|---|")
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? ["stdio", "http"] as const : ["http", "stdio"] as const
    for (const via of order) {
      const r = via === "stdio"
        ? await run(stdio, stdioTransport.pid ?? undefined)
        : await run(http, server.process.pid)
      log(
        `| ${round} | ${via} | ${r.perSecond.toFixed(0)} | ${r.relay.toFixed(3)} | ${r.client.toFixed(3)} | ${
          loadavg()[0]!.toFixed(2)
        } |`
      )
    }
  }
} finally {
  await http.close().catch(() => undefined)
  await stdio.close().catch(() => undefined)
  await server.stop()
  await db.stop()
}
