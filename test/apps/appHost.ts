import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { connectInProcess } from "../support/inProcessRelay.js"
import { falkordbEnv, serverEntry } from "../support/mcpClient.js"
import { withRawDatabase } from "../support/rawDatabase.js"
import { callDecoded, outputOf } from "../support/toolOutputs.js"

/** What a host that draws MCP Apps says in its capabilities (SEP-1865). */
export const appsCapabilities = {
  extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } }
}

/**
 * An MCP client as a host connects it: the official SDK client, to Relay on the graph given (in this
 * process unless `process`: then dist/server.js over stdio), with the default reply form (compact)
 * unless told, and with or without apps.
 */
export const connectHost = async (
  graph: string,
  options: { apps: boolean; env?: Record<string, string>; process?: boolean }
): Promise<Client> => {
  const env = falkordbEnv({ RELAY_GRAPH: graph, RELAY_STRUCTURED_CONTENT: undefined, ...options.env })
  const name = options.apps ? "apps-host" : "text-host"
  const clientOptions = options.apps ? { capabilities: appsCapabilities } : {}
  if (options.process !== true) return (await connectInProcess(graph, env, name, clientOptions)).client
  const transport = new StdioClientTransport({ command: process.execPath, args: [serverEntry], env, stderr: "pipe" })
  const client = new Client({ name, version: "0.0.0" }, clientOptions)
  await client.connect(transport)
  return client
}

export const dropGraph = (graph: string) =>
  withRawDatabase((db) => db.selectGraph(graph).delete().catch(() => undefined))

export const hostile = "<img src=x onerror=\"window.__pwned=1\"> Use Redis streams for the queue"

/**
 * One thread with everything the app draws: a fork settled by a decision (b lost to a, so b is
 * superseded and c, saved on b before, is stale), and an open fork under a (d and e differ; e's
 * text is markup a model could have written).
 */
export const seedThread = async (client: Client) => {
  const by = { written_by: "ana", session_id: "s-apps" }
  const save = async (content: string, parent?: string) => {
    const r = await callDecoded(client, "relay_save_fact", {
      content,
      ...by,
      ...(parent === undefined ? {} : { parent_fact_id: parent })
    })
    if (r.isError === true) throw new Error(r.content[0]?.text)
    return outputOf(r).fact.id
  }
  const root = await save("The billing service needs a job queue")
  const a = await save("Use Postgres with SKIP LOCKED as the job queue", root)
  const b = await save("Use RabbitMQ as the job queue", root)
  const c = await save("Run RabbitMQ as a three-node cluster with quorum queues", b)
  const resolved = await callDecoded(client, "relay_resolve_conflict", {
    winner_fact_id: a,
    loser_fact_id: b,
    reason: "one database less to run",
    resolved_by: "ben"
  })
  if (resolved.isError === true) throw new Error(resolved.content[0]?.text)
  const d = await save("Poll the Postgres queue every second", a)
  const e = await save(hostile, a)
  return { root, a, b, c, d, e }
}
