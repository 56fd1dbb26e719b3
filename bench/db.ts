import { FalkorDB } from "falkordb"
import { type RunningServer, startServer } from "../test/support/falkordbServer.js"

/** Where the benchmark's FalkorDB is: FALKORDB_HOST/PORT/PASSWORD if set, else a private throwaway server. */
export interface BenchDatabase {
  readonly host: string
  readonly port: number
  readonly password: string | undefined
  readonly stop: () => Promise<void>
}

export const openDatabase = async (): Promise<BenchDatabase> => {
  const host = process.env.FALKORDB_HOST
  if (host !== undefined && host !== "") {
    return {
      host,
      port: Number(process.env.FALKORDB_PORT ?? 6379),
      password: process.env.FALKORDB_PASSWORD,
      stop: () => Promise.resolve()
    }
  }
  const server: RunningServer = await startServer()
  return { host: server.host, port: server.port, password: server.password, stop: server.stop }
}

/** The bare `falkordb` client: what the floor level runs on. */
export const bareClient = (db: BenchDatabase) =>
  FalkorDB.connect({
    socket: { host: db.host, port: db.port },
    ...(db.password === undefined ? {} : { password: db.password })
  })

/** "4.16.3" from MODULE LIST (ver 41603). */
export const falkorVersion = async (client: FalkorDB): Promise<string> => {
  const conn = await client.connection
  const modules = await (conn as unknown as { sendCommand: (args: Array<string>) => Promise<unknown> })
    .sendCommand(["MODULE", "LIST"])
  const flat = JSON.stringify(modules)
  const m = /"graph","ver",(\d+)/.exec(flat)
  if (m?.[1] === undefined) return "unknown"
  const v = Number(m[1])
  return `${Math.floor(v / 10000)}.${Math.floor(v / 100) % 100}.${v % 100}`
}

/** Env for a Relay server process pointed at the bench database and graph, with the rate limit out of the way. */
export const relayEnv = (db: BenchDatabase, graph: string): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "/tmp",
  FALKORDB_HOST: db.host,
  FALKORDB_PORT: String(db.port),
  ...(db.password === undefined ? {} : { FALKORDB_PASSWORD: db.password }),
  RELAY_GRAPH: graph,
  RELAY_RATE_LIMIT: "100000000",
  // The benches read replies as their Schemas encode them (whole ids, facts as objects).
  RELAY_STRUCTURED_CONTENT: "full"
})
