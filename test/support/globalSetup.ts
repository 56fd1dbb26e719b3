import { FalkorDB } from "falkordb"
import type { TestProject } from "vitest/node"
import { type RunningServer, startServer } from "./falkordbServer.js"

let server: RunningServer | undefined

/** One real FalkorDB for the whole run; each test file works in a graph of its own and drops it. */
export async function setup(project: TestProject) {
  server = await startServer()
  process.env.FALKORDB_HOST = server.host
  process.env.FALKORDB_PORT = String(server.port)
  process.env.FALKORDB_PASSWORD = server.password
  delete process.env.FALKORDB_URL
  project.provide("falkordb", { host: server.host, port: server.port, password: server.password })
}

/** Drops every graph the run made (all graphs on this run's own server), then stops the server. */
export async function teardown() {
  if (server === undefined) return
  const db = await FalkorDB.connect({ socket: { host: server.host, port: server.port }, password: server.password })
  try {
    for (const graph of await db.list()) await db.selectGraph(graph).delete()
  } finally {
    await db.close()
    await server.stop()
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    falkordb: { host: string; port: number; password: string }
    /** The share of each heavy property's runs this suite makes (propertyRuns.ts). */
    propertyShare: number
  }
}
