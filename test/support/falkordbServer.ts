import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createWriteStream, mkdtempSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { effectsThreshold } from "../../src/layers/database/effectsReplication.js"
import { findServerBinary, requireModule } from "../../src/layers/embedded/serverBinary.js"

/**
 * A throwaway FalkorDB for one test run: the FalkorDB module on the server binary the embedded
 * launcher would pick (src/layers/embedded/serverBinary.ts), started here on a port of its own.
 */
const serverAndModule = () =>
  Effect.runPromise(
    Effect.all([findServerBinary, requireModule]).pipe(Effect.provide(NodeContext.layer))
  ).then(([binary, module]) => ({ bin: binary.command, module }))

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer()
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address()
      srv.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))
      )
    })
  })

export interface RunningServer {
  readonly host: string
  readonly port: number
  readonly password: string
  readonly dir: string
  process: ChildProcess
  /** SIGKILL, as a crash would. */
  readonly kill: () => Promise<void>
  /** Start again on the same port and data. */
  readonly restart: () => Promise<void>
  readonly stop: () => Promise<void>
}

/** How long a server may take to say it is ready before the start fails with what it said (never a silent hang). */
const readyWithin = 60_000

const waitReady = async (child: ChildProcess) =>
  new Promise<void>((resolve, reject) => {
    let out = ""
    // Drained from the start: a server that filled an unread stderr pipe would block before it is ready.
    child.stderr?.resume()
    const late = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`server not ready within ${readyWithin} ms: ${out.slice(-500)}`))
    }, readyWithin)
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      if (/Ready to accept connections/i.test(out)) {
        clearTimeout(late)
        child.stdout?.off("data", onData)
        resolve()
      }
    }
    child.stdout?.on("data", onData)
    child.once("exit", (code) => {
      clearTimeout(late)
      reject(new Error(`server exited (${code}): ${out.slice(-500)}`))
    })
  })

export const startServer = async (
  options: { persist?: boolean; effectsThreshold?: number } = {}
): Promise<RunningServer> => {
  const port = await freePort()
  const password = randomBytes(18).toString("base64url")
  const dir = mkdtempSync(join(tmpdir(), "relay-test-db-"))
  const { bin, module: modulePath } = await serverAndModule()
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--requirepass",
    password,
    "--loadmodule",
    modulePath,
    // As every server Relay starts: writes replicate as queries (database/effectsReplication.ts).
    "EFFECTS_THRESHOLD",
    // Another value: FalkorDB's default (300), or 0 (always effects), for the tests of what it does.
    String(options.effectsThreshold ?? effectsThreshold),
    "--save",
    "",
    ...(options.persist === true ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"])
  ]
  const launch = async () => {
    const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] })
    await waitReady(child)
    // RELAY_TEST_DB_LOG=file keeps the server's log: a crash report names the statement that crashed it.
    const log = process.env.RELAY_TEST_DB_LOG
    if (log === undefined) child.stdout?.resume()
    else child.stdout?.pipe(createWriteStream(log, { flags: "a" }))
    child.stderr?.resume()
    return child
  }
  const server: RunningServer = {
    host: "127.0.0.1",
    port,
    password,
    dir,
    process: await launch(),
    kill: async () => {
      const exited = new Promise((r) => server.process.once("exit", r))
      server.process.kill("SIGKILL")
      await exited
    },
    restart: async () => {
      server.process = await launch()
    },
    stop: async () => {
      if (server.process.exitCode !== null || server.process.signalCode !== null) return
      const exited = new Promise((r) => server.process.once("exit", r))
      server.process.kill("SIGTERM")
      // A server busy writing its AOF may take long to stop; a test's teardown must not hang on it.
      const stubborn = setTimeout(() => server.process.kill("SIGKILL"), 10_000)
      await exited
      clearTimeout(stubborn)
    }
  }
  return server
}
