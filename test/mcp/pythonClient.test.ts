import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "vitest"
import { falkordbEnv, serverEntry } from "../support/mcpClient.js"
import { testGraphName } from "../support/testLayer.js"

/**
 * The Python SDK's client (`mcp` 2.3.0, pinned to 2026-07-28 and in auto mode) against dist/server.js
 * over stdio, in a venv this test makes. Skipped, with the reason, where python3 or its venv module
 * is missing or the package index does not answer within a few seconds: the index is asked once
 * before anything is installed, so a machine without it skips at once.
 */
const run = promisify(execFile)
const index = process.env.PIP_INDEX_URL ?? "https://pypi.org/simple"

const unavailable = async (): Promise<string | null> => {
  try {
    await run("python3", ["-c", "import venv, ensurepip"], { timeout: 5_000 })
  } catch {
    return "python3 with its venv and ensurepip modules is not installed"
  }
  try {
    const reply = await fetch(`${index.replace(/\/$/, "")}/mcp/`, { signal: AbortSignal.timeout(3_000) })
    if (!reply.ok) return `the package index ${index} answered ${reply.status}`
  } catch {
    return `the package index ${index} is unreachable`
  }
  return null
}

const why = await unavailable()
const dir = mkdtempSync(join(tmpdir(), "relay-python-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Lists the tools and saves a fact; prints the negotiated version. */
const script = String.raw`
import asyncio, json, sys
from mcp import StdioServerParameters
from mcp.client.client import Client

async def main(mode, entry, env):
    server = StdioServerParameters(command="node", args=[entry], env=json.loads(env))
    pin = None if mode == "auto" else "2026-07-28"
    async with Client(server, protocol_version=pin) as client:
        tools = await client.list_tools()
        saved = await client.call_tool("relay_save_fact", {
            "content": "saved by the Python SDK", "written_by": "python", "session_id": "py"})
        print(json.dumps({"tools": len(tools.tools), "error": bool(saved.isError)}))

asyncio.run(main(*sys.argv[1:]))
`

describe.skipIf(why !== null)(`the Python SDK's client (mcp 2.3.0)${why === null ? "" : `: skipped, ${why}`}`, () => {
  it("connects pinned to 2026-07-28 and in auto mode, lists the tools and saves", async () => {
    const python = join(dir, "venv", "bin", "python")
    await run("python3", ["-m", "venv", join(dir, "venv")], { timeout: 60_000 })
    await run(python, ["-m", "pip", "install", "--quiet", "--timeout", "10", "--index-url", index, "mcp==2.3.0"], {
      timeout: 120_000
    })
    writeFileSync(join(dir, "client.py"), script)
    const env = JSON.stringify(falkordbEnv({ RELAY_GRAPH: testGraphName("python") }))
    for (const mode of ["2026-07-28", "auto"]) {
      const { stdout } = await run(python, [join(dir, "client.py"), mode, serverEntry, env], { timeout: 60_000 })
      const answer = JSON.parse(stdout.trim().split("\n").at(-1)!) as { tools: number; error: boolean }
      expect(answer.error).toBe(false)
      expect(answer.tools).toBeGreaterThan(10)
    }
  }, 240_000)
})
