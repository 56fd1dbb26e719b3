import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { serverEntry } from "../support/mcpClient.js"

/** One JSON-RPC message off the wire, undecoded: these tests read its envelope, not a tool's output. */
export interface WireMessage {
  readonly id?: number | string | null
  readonly result?: { readonly isError?: boolean; readonly tools?: ReadonlyArray<unknown> }
  readonly error?: { readonly code: number; readonly message: string }
}

export interface Target {
  readonly host: string
  readonly port: number
  readonly password: string
}

export interface RawRelay {
  readonly child: ChildProcessWithoutNullStreams
  readonly stderr: () => string
  /** Writes one message as one line. */
  readonly send: (message: unknown) => void
  /** The reply to request `id`, or a rejection after `ms`. */
  readonly reply: (id: number | string, ms?: number) => Promise<WireMessage>
  /** Every message Relay wrote to stdout so far. */
  readonly messages: () => Array<WireMessage>
  /** The exit (code, signal and how long it took from the call), or a rejection after `ms`. */
  readonly exited: (ms: number) => Promise<{ code: number | null; signal: string | null; afterMs: number }>
  /** Sends initialize and the initialized notification and waits for the answer. */
  readonly initialize: () => Promise<void>
}

const bounded = <A>(what: string, ms: number, wait: (done: (a: A) => void) => void) =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms)
    wait((a) => {
      clearTimeout(timer)
      resolve(a)
    })
  })

/**
 * `dist/server.js` as a bare process with its three pipes, for the shapes the SDK client cannot
 * send or survive (a line it would refuse, a client that vanishes mid-call). Waits are on events,
 * each bounded.
 */
export const spawnRelay = (target: Target, graph: string): RawRelay => {
  const child = spawn(process.execPath, [serverEntry], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      FALKORDB_HOST: target.host,
      FALKORDB_PORT: String(target.port),
      FALKORDB_PASSWORD: target.password,
      RELAY_GRAPH: graph
    },
    stdio: ["pipe", "pipe", "pipe"]
  })
  // A test may close the pipes under a write in progress.
  child.stdin.on("error", () => undefined)
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const messages: Array<WireMessage> = []
  let partial = ""
  child.stdout.on("data", (chunk: Buffer) => {
    partial += chunk.toString()
    const lines = partial.split("\n")
    partial = lines.pop() ?? ""
    for (const line of lines) if (line.trim() !== "") messages.push(JSON.parse(line))
    child.stdout.emit("message")
  })
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )

  const reply = (id: number | string, ms = 10_000) =>
    bounded<WireMessage>(`reply to ${id}`, ms, (done) => {
      const check = () => {
        const found = messages.find((m) => m.id === id)
        if (found === undefined) return
        child.stdout.off("message", check)
        done(found)
      }
      child.stdout.on("message", check)
      check()
    })

  const send = (message: unknown) => {
    child.stdin.write(JSON.stringify(message) + "\n")
  }

  return {
    child,
    stderr: () => stderr,
    send,
    reply,
    messages: () => messages,
    exited: (ms) => {
      const from = performance.now()
      return bounded(
        `exit of Relay`,
        ms,
        (done) => void exit.then((e) => done({ ...e, afterMs: Math.round(performance.now() - from) }))
      )
    },
    initialize: async () => {
      send({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "hostile", version: "0" } }
      })
      await reply("init", 30_000)
      send({ jsonrpc: "2.0", method: "notifications/initialized" })
    }
  }
}
