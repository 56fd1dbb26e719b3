import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
const env = { PATH: process.env.PATH ?? "", HOME: "/tmp", FALKORDB_HOST: "127.0.0.1", FALKORDB_PORT: "1", RELAY_GRAPH: "x" }
for (let i = 0; i < 4; i++) {
  for (const g of ["2025", "2026"] as const) {
    const c = new Client({ name: "c", version: "0" }, { versionNegotiation: g === "2026" ? { mode: { pin: "2026-07-28" } } : { mode: "legacy" } })
    const t = performance.now()
    await c.connect(new StdioClientTransport({ command: process.execPath, args: ["dist/server.js"], env, stderr: "ignore" }))
    const connected = performance.now() - t
    await c.listTools()
    console.log(g, connected.toFixed(0), "ms connect,", (performance.now() - t).toFixed(0), "ms to tools/list")
    await c.close()
  }
}
