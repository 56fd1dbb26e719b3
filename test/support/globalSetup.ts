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

export async function teardown() {
  await server?.stop()
}

declare module "vitest" {
  export interface ProvidedContext {
    falkordb: { host: string; port: number; password: string }
  }
}
