import { createMcpHandler, Server } from "@modelcontextprotocol/server"
import { makeRelayServer } from "../src/mcp/mcpHandlers.js"
import { failure } from "../src/mcp/callTool.js"
const run = async () => failure("internal", "x")
const N = 1500
let t = performance.now()
for (let i = 0; i < N; i++) makeRelayServer(run as never)
console.log("makeRelayServer", ((performance.now() - t) / N).toFixed(3), "ms")
const handler = createMcpHandler(() => makeRelayServer(run as never), { legacy: "reject", responseMode: "json" })
const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "relay_status", arguments: {}, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": {name:"a",version:"1"} } } }
const req = () => new Request("http://localhost/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "relay_status" } })
for (let i = 0; i < 50; i++) await (await handler.fetch(req(), { parsedBody: body })).text()
t = performance.now()
for (let i = 0; i < N; i++) await (await handler.fetch(req(), { parsedBody: body })).text()
console.log("fetch tools/call", ((performance.now() - t) / N).toFixed(3), "ms")
console.log(await (await handler.fetch(req(), { parsedBody: body })).text())
