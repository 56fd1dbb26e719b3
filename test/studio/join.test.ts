import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "../support/falkordbServer.js"
import { falkordbEnv } from "../support/mcpClient.js"
import { testGraphName } from "../support/testLayer.js"

/**
 * `npm run studio` run again while a studio runs on its port joins that studio: it prints a new
 * one-time login link to it and exits, where it used to fail with "try --port". The key it asks with
 * is in a file of the user's data directory; without it, or from a browser, the studio says no.
 */
const dataDir = mkdtempSync(join(tmpdir(), "relay-studio-join-"))
const env = falkordbEnv({ RELAY_GRAPH: testGraphName("studio_join"), RELAY_DATA_DIR: dataDir })
let studio: ChildProcess
let port: number
let first: string

const get = (url: string, headers: Record<string, string> = {}, method = "GET") =>
  new Promise<{ status: number; cookie: boolean }>((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      res.resume()
      res.on("end", () => resolve({ status: res.statusCode ?? 0, cookie: res.headers["set-cookie"] !== undefined }))
    })
    req.on("error", reject)
    req.end()
  })

const runStudio = () =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["dist/cli/studio.js", "--port", String(port)],
      { env, timeout: 30_000 },
      (e, stdout, stderr) =>
        resolve({ code: e === null ? 0 : typeof e.code === "number" ? e.code : -1, stdout, stderr })
    )
  })

beforeAll(async () => {
  port = await freePort()
  studio = spawn(process.execPath, ["dist/cli/studio.js", "--port", String(port)], {
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  first = await new Promise<string>((resolve, reject) => {
    let out = ""
    studio.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("\n")) resolve(out.split("\n")[0]!.trim())
    })
    studio.once("exit", (code) => reject(new Error(`studio exited ${code}`)))
  })
}, 60_000)

afterAll(() => {
  studio?.kill()
  rmSync(dataDir, { recursive: true, force: true })
})

describe("npm run studio, run again", () => {
  it("prints a new login link to the running studio; each link signs in once", async () => {
    const again = await runStudio()
    expect(again.code).toBe(0)
    expect(again.stderr).toContain(`Relay Studio already runs on 127.0.0.1:${port}`)
    const second = again.stdout.trim()
    expect(second).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/studio/login\\?secret=`))
    expect(second).not.toBe(first)
    for (const link of [first, second]) {
      expect(await get(link)).toEqual({ status: 303, cookie: true })
      expect((await get(link)).cookie).toBe(false)
    }
  })

  it("refuses a link request without the key, with a wrong key, or from a web page", async () => {
    const at = `http://127.0.0.1:${port}/studio/link`
    expect((await get(at, {}, "POST")).status).toBe(403)
    expect((await get(at, { "x-relay-studio-key": "0".repeat(64) }, "POST")).status).toBe(403)
    expect((await get(at, { origin: "http://evil.example" }, "POST")).status).toBe(403)
  })

  it("keeps its key where only this user reads it, and removes it when it stops", async () => {
    const file = join(dataDir, `studio-${port}.key`)
    expect(existsSync(file)).toBe(true)
    const { statSync } = await import("node:fs")
    expect(statSync(file).mode & 0o777).toBe(0o600)
    await new Promise<void>((resolve) => {
      studio.once("exit", () => resolve())
      studio.kill("SIGTERM")
    })
    expect(existsSync(file)).toBe(false)
  })
})
