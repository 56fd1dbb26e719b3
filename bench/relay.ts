import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import type { Graph } from "falkordb"
import { readFileSync } from "node:fs"
import { relayStack } from "../src/layers/assembly/stacks.js"
import { statement } from "../src/layers/database/decodeRows.js"
import { callTool, type ToolResult } from "../src/mcp/callTool.js"
import { type CypherParams, GraphDatabase } from "../src/services/GraphDatabase.js"
import { Settings } from "../src/services/Settings.js"
import { tools } from "../src/tools/registry.js"
import type { EncodedOutputOf } from "../test/support/toolOutputs.js"
import { type BenchDatabase, relayEnv } from "./db.js"
import { serverEntry } from "./relayProcess.js"

/** One statement as the app sent it; statements of one group were in flight together. */
export interface Recorded {
  readonly mode: "query" | "roQuery"
  readonly cypher: string
  readonly params: CypherParams | undefined
  readonly group: number
}

/**
 * Records the statements a tool call sends, so the floor replays exactly the app's Cypher on the
 * bare client (whatever the FactStore queries look like today). When not recording it only
 * checks one field before passing the call through.
 */
export class Recorder {
  active: Array<Recorded> | null = null
  inflight = 0
  group = 0
  wrap(db: GraphDatabase["Type"]): GraphDatabase["Type"] {
    const through = (mode: Recorded["mode"]) =>
      statement((cypher, params, row) => {
        const base = mode === "query" ? db.write : db.read
        const run = row === undefined ? base(cypher, params) : base(cypher, params ?? {}, row)
        if (this.active === null) return run
        return Effect.suspend(() => {
          if (this.inflight === 0) this.group++
          this.inflight++
          this.active?.push({ mode, cypher, params, group: this.group })
          return run
        }).pipe(Effect.ensuring(Effect.sync(() => this.inflight--)))
      })
    return { ...db, write: through("query"), read: through("roQuery") }
  }
  async record<A>(run: () => Promise<A>): Promise<{ result: A; trace: ReadonlyArray<ReadonlyArray<Recorded>> }> {
    this.active = []
    try {
      const result = await run()
      const groups = new Map<number, Array<Recorded>>()
      for (const r of this.active) groups.set(r.group, [...(groups.get(r.group) ?? []), r])
      return { result, trace: [...groups.values()] }
    } finally {
      this.active = null
    }
  }
}

/**
 * Relay's in-process stack (FactStore, rate limiter, secret scanner) on a graph of the bench's
 * database, with every statement it sends recorded so the floor can replay them.
 */
export const recordedRelay = (db: BenchDatabase, graph: string) => {
  const recorder = new Recorder()
  const settings = Layer.succeed(Settings, {
    database: {
      _tag: "HostPort",
      host: db.host,
      port: db.port,
      password: db.password === undefined ? null : Redacted.make(db.password)
    },
    graph,
    rateLimitPerMinute: 100_000_000
  })
  // The stack as relayStack assembles it, with the connection under FactStore wrapped by the recorder.
  const layer = relayStack(settings, { wrap: (base) => recorder.wrap(base) })
  return { recorder, runtime: ManagedRuntime.make(layer) }
}

export const inProcessRelay = (db: BenchDatabase, graph: string) => {
  const { recorder, runtime } = recordedRelay(db, graph)
  const byName = new Map(tools.map((t) => [t.name, t]))
  /** The MCP edge's own path: decode, policies, handler, result mapping. */
  const call: BenchCall = async (name, args) => {
    const tool = byName.get(name)
    if (tool === undefined) throw new Error(`no tool ${name}`)
    const r: ToolResult = await runtime.runPromise(callTool(tool, args))
    if (r.isError === true) throw new Error(`${name} failed in-process: ${r.content[0]?.text}`)
    // The structuredContent is the output encoded with the tool's own Schema: its EncodedOutputOf.
    return r.structuredContent as EncodedOutputOf<typeof name>
  }
  return { call, recorder, dispose: () => runtime.dispose() }
}

/** Replays a recorded call on the bare client, with ids swapped and `now` taken fresh. */
export const replay = async (
  graph: Graph,
  trace: ReadonlyArray<ReadonlyArray<Recorded>>,
  swap: ReadonlyMap<string, string>
) => {
  const fix = (v: unknown, key?: string): unknown => {
    if (key === "now") return Date.now()
    if (typeof v === "string") return swap.get(v) ?? v
    if (Array.isArray(v)) return v.map((x) => fix(x))
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fix(x, k)]))
    }
    return v
  }
  for (const group of trace) {
    await Promise.all(group.map((q) => {
      const options = q.params === undefined ? undefined : { params: fix(q.params) as Record<string, never> }
      return q.mode === "query" ? graph.query(q.cypher, options) : graph.roQuery(q.cypher, options)
    }))
  }
}

/** A tool call that answers the tool's output as JSON (throwing on an error result). */
export type BenchCall = <N extends string>(name: N, args: Record<string, unknown>) => Promise<EncodedOutputOf<N>>

export interface StdioRelay {
  readonly call: BenchCall
  readonly rssMb: () => number
  /** The server process's id (undefined once it is gone or for a restarted one). */
  readonly pid?: number | undefined
  readonly close: () => Promise<void>
}

/** An MCP SDK Client over stdio against a spawned process (dist/server.js unless told otherwise). */
export const stdioClient = async (
  env: Record<string, string>,
  args: ReadonlyArray<string> = [serverEntry],
  label = "relay"
): Promise<StdioRelay> => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [...args], env, stderr: "pipe" })
  let stderr = ""
  transport.stderr?.on("data", (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000)
  })
  const client = new Client({ name: "relay-bench", version: "0.0.0" })
  await client.connect(transport)
  await client.listTools() // as a real client does; the SDK then checks structuredContent against outputSchema
  const pid = transport.pid
  return {
    call: async (name, a) => {
      const r = await client.callTool({ name, arguments: a }, undefined, { timeout: 120_000 })
      if (r.isError === true) {
        throw new Error(`${label} ${name} failed: ${JSON.stringify(r.content).slice(0, 300)} ${stderr.slice(-500)}`)
      }
      // The SDK has checked it against the listed outputSchema; another server (memoryServer.ts) may have none.
      return (r.structuredContent ?? { content: r.content }) as EncodedOutputOf<typeof name>
    },
    pid: pid ?? undefined,
    rssMb: () => {
      if (pid === null) return NaN
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
      return m?.[1] === undefined ? NaN : Number(m[1]) / 1024
    },
    close: () => client.close()
  }
}

/**
 * A Relay server process that is started again when its connection dies (e.g. a reply over the
 * SDK's 10 MB stdio message limit closes it), so one failed measurement does not end the run.
 */
export const relayProcess = async (db: BenchDatabase, graph: string): Promise<StdioRelay> => {
  let current = await stdioClient(relayEnv(db, graph))
  let dead = false
  return {
    call: async (name, a) => {
      if (dead) {
        await current.close().catch(() => undefined)
        current = await stdioClient(relayEnv(db, graph))
        dead = false
      }
      try {
        return await current.call(name, a)
      } catch (e) {
        if (/Connection closed/i.test(String(e))) dead = true
        throw e
      }
    },
    rssMb: () => current.rssMb(),
    close: () => current.close()
  }
}
