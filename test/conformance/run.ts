/**
 * `@modelcontextprotocol/conformance` (server scenarios) against `relay --http`:
 *
 *   npm run build && npm run test:conformance
 *
 * The suite needs Node 22; Relay runs on 20. Both are npm packages (the `node` package ships the
 * binary), installed here into .conformance/ at pinned versions, so nothing is downloaded but
 * registry packages. The suite sends no bearer token, so it talks to a loopback proxy that adds one
 * and passes everything else (Host and Origin included) through unchanged; the proxy's address is an
 * allowed Host of the Relay it fronts. Scenarios that test features Relay does not have (the
 * reference server's fixture tools, sampling, elicitation, logging, completion, subscriptions, SSE
 * streams) are not run: docs/contract.md lists them with the reason.
 */
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { startHttpRelay, tokenCommand } from "../../bench/relayProcess.js"
import { startServer } from "../support/falkordbServer.js"

export const applicable = [
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "prompts-list",
  "dns-rebinding-protection"
] as const

const versions = { suite: "0.1.16", node: "22.23.3" }
const root = join(import.meta.dirname, "..", "..")
const prefix = join(root, ".conformance")
const bin = (name: string) => join(prefix, "node_modules", ".bin", name)

const install = () => {
  if (existsSync(bin("conformance")) && existsSync(bin("node"))) return
  execFileSync("npm", [
    "install",
    "--prefix",
    prefix,
    "--no-save",
    "--no-audit",
    "--no-fund",
    `@modelcontextprotocol/conformance@${versions.suite}`,
    `node@${versions.node}`
  ], { stdio: ["ignore", "inherit", "inherit"] })
}

/** A proxy on a free loopback port that adds the bearer token to every request. */
const tokenProxy = (targetOf: () => URL, token: string) =>
  new Promise<{ url: string; close: () => void }>((resolve) => {
    const proxy = createServer((req, res) => {
      const target = targetOf()
      const forwarded = request({
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` }
      }, (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers)
        reply.pipe(res)
      })
      forwarded.on("error", () => res.destroy())
      req.pipe(forwarded)
    })
    proxy.listen(0, "127.0.0.1", () => {
      const { port } = proxy.address() as AddressInfo
      resolve({ url: `http://127.0.0.1:${port}/mcp`, close: () => proxy.close() })
    })
  })

const main = async () => {
  install()
  const db = await startServer()
  const tag = randomBytes(4).toString("hex")
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    FALKORDB_HOST: db.host,
    FALKORDB_PORT: String(db.port),
    FALKORDB_PASSWORD: db.password,
    RELAY_TOKEN_GRAPH: `relay_tokens_conformance_${tag}`
  }
  const token = (await tokenCommand(env, ["create", "--name", "conformance", "--workspace", `conformance-${tag}`]))
    .stdout
  // The proxy's port must be an allowed Host before Relay starts: listen first, then point it on.
  const relayUrl: { current?: URL } = {}
  const proxy = await tokenProxy(() => relayUrl.current!, token)
  const relay = await startHttpRelay({ ...env, RELAY_HTTP_ALLOWED_HOSTS: new URL(proxy.url).host })
  relayUrl.current = new URL(relay.url)
  // SCENARIOS=a,b runs others by name (to see how the ones that do not apply fail).
  const scenarios = process.env.SCENARIOS?.split(",") ?? applicable
  const failed: Array<string> = []
  try {
    for (const scenario of scenarios) {
      // Not spawnSync: the proxy serves from this process's event loop.
      const suite = spawn(bin("node"), [bin("conformance"), "server", "--url", proxy.url, "--scenario", scenario], {
        stdio: ["ignore", "inherit", "inherit"],
        timeout: 120_000
      })
      const status = await new Promise<number | null>((done) => suite.once("exit", (code) => done(code)))
      if (status !== 0) failed.push(scenario)
    }
  } finally {
    proxy.close()
    await relay.stop()
    await db.stop()
  }
  const passed = scenarios.length - failed.length
  console.log(
    `conformance: ${passed} passed, ${failed.length} failed${failed.length > 0 ? `: ${failed.join(", ")}` : ""}`
  )
  process.exitCode = failed.length === 0 ? 0 : 1
}

await main()
