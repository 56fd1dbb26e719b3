import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { FalkorDB } from "falkordb"
import { inject } from "vitest"
import { connectRelay, type RelayClient } from "./mcpClient.js"
import { liveLayerOn, type Target, testGraphName } from "./testLayer.js"

/**
 * Helpers for the proof suites (mcp, concurrency, faults): a direct admin connection to a
 * FalkorDB (the run's or a private one) to look at the graph and the server without going through
 * Relay, Relay processes pointed at a private server, and the live layers on a private server.
 */

export type { Target } from "./testLayer.js"

export const runDatabase = (): Target => inject("falkordb")

export interface Admin {
  readonly query: <Row = Record<string, unknown>>(
    graph: string,
    cypher: string,
    params?: Record<string, unknown>
  ) => Promise<Array<Row>>
  readonly command: (args: Array<string>) => Promise<unknown>
  /** Connections the server has accepted since it started (INFO stats): counts every connect, even closed ones. */
  readonly totalConnections: () => Promise<number>
  readonly close: () => Promise<void>
}

/** A plain falkordb client of our own: the test's eyes on the server, never Relay's code path. */
export const connectAdmin = async (target: Target = runDatabase()): Promise<Admin> => {
  const db = await FalkorDB.connect({ socket: { host: target.host, port: target.port }, password: target.password })
  db.on("error", () => {})
  const connection = await db.connection
  return {
    query: async <Row>(
      graph: string,
      cypher: string,
      params?: Record<string, unknown>
    ) => ((await db.selectGraph(graph).query<Row>(
      cypher,
      params === undefined ? undefined : { params: params as never }
    )).data ?? []),
    command: (args) => connection.sendCommand(args),
    totalConnections: async () => {
      const info = String(await connection.sendCommand(["INFO", "stats"]))
      const match = /total_connections_received:(\d+)/.exec(info)
      if (match?.[1] === undefined) throw new Error("no total_connections_received in INFO stats")
      return Number(match[1])
    },
    close: () => db.close().catch(() => undefined)
  }
}

/** A Relay pointed at the given server (a private one, for fault tests); `process` as connectRelay's. */
export const connectRelayTo = (
  target: Target,
  options: { graph?: string; env?: Record<string, string>; name?: string; process?: boolean } = {}
): Promise<RelayClient> =>
  connectRelay({
    ...options,
    env: {
      FALKORDB_HOST: target.host,
      FALKORDB_PORT: String(target.port),
      FALKORDB_PASSWORD: target.password,
      ...options.env
    }
  })

/** The pid of the Relay process behind a client, to kill it as a crash would. */
export const relayPid = (relay: RelayClient): number => {
  const pid = (relay.client.transport as StdioClientTransport | undefined)?.pid
  if (pid === null || pid === undefined) throw new Error("the Relay process is not running")
  return pid
}

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The live database stack (as relayTestLayer) on a given server and graph; the graph is dropped on release. */
export const layerOn = (target: Target, graph = testGraphName("proof")) => liveLayerOn(target, graph)

/** Every Fact node of a graph with all its stored properties, as the database holds them. */
export interface StoredFact {
  readonly id: string | null
  readonly content: string | null
  readonly norm: string | null
  readonly written_by: string | null
  readonly session_id: string | null
  readonly created_at: number | null
  readonly parents: Array<string>
}

export const storedFacts = (admin: Admin, graph: string) =>
  admin.query<StoredFact>(
    graph,
    "MATCH (f:Fact) RETURN f.id AS id, f.content AS content, f.norm AS norm, f.written_by AS written_by, " +
      "f.session_id AS session_id, f.created_at AS created_at, [(f)-[:BUILDS_ON]->(p) | p.id] AS parents"
  )

/** Deterministic randomness for a printed seed (mulberry32). */
export const seededRandom = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The values that occur more than once. */
export const repeated = <A>(values: ReadonlyArray<A>): Array<A> => {
  const seen = new Map<A, number>()
  for (const v of values) seen.set(v, (seen.get(v) ?? 0) + 1)
  return [...seen].filter(([, n]) => n > 1).map(([v]) => v)
}
