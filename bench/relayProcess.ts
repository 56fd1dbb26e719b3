import { type ChildProcess, execFile, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

/**
 * The built server and token CLI as separate processes, as a client machine runs them: for the
 * benchmarks, and for tests that need `relay --http` (they import this rather than keep a copy).
 */
/** RELAY_BENCH_SERVER: another build's server.js, to compare two builds on one machine at one time. */
export const serverEntry = process.env.RELAY_BENCH_SERVER ??
  fileURLToPath(new URL("../dist/server.js", import.meta.url))
const tokenCli = fileURLToPath(new URL("../dist/cli/token.js", import.meta.url))

/** Runs `node dist/cli/token.js ...` as `npm run token --` would; answers its trimmed stdout and its stderr. */
export const tokenCommand = async (env: Readonly<Record<string, string>>, args: ReadonlyArray<string>) => {
  const { stderr, stdout } = await promisify(execFile)(process.execPath, [tokenCli, ...args], { env })
  return { stdout: stdout.trim(), stderr }
}

export interface HttpRelay {
  readonly url: string
  readonly process: ChildProcess
  /** Everything the server logged so far. */
  readonly stderr: () => string
  /** SIGTERM, SIGKILL after 10 s; resolves once the process is gone (a server still shutting down against a stopped database was once left running). */
  readonly stop: () => Promise<void>
}

/**
 * Starts `node dist/server.js --http` (on a free loopback port unless `env` names one) and resolves
 * once it logs "ready on <url>"; rejects with the tail of its log if it exits first.
 */
export const startHttpRelay = (env: Readonly<Record<string, string>>): Promise<HttpRelay> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [serverEntry, "--http"], {
      env: { RELAY_HTTP_PORT: "0", ...env },
      stdio: ["ignore", "ignore", "pipe"]
    })
    // A caller that failed before it kept the handle must not leave the server running.
    const reap = () => child.kill("SIGKILL")
    process.once("exit", reap)
    child.once("exit", () => process.off("exit", reap))
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done()
        const forced = setTimeout(() => child.kill("SIGKILL"), 10_000)
        child.once("exit", () => {
          clearTimeout(forced)
          done()
        })
        child.kill("SIGTERM")
      })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      const ready = /ready on (http:\/\/\S+\/mcp)/.exec(stderr)
      if (ready !== null) resolve({ url: ready[1]!, process: child, stderr: () => stderr, stop })
    })
    child.once("exit", (code) => reject(new Error(`relay --http exited (${code}): ${stderr.slice(-800)}`)))
  })
